package dev.sluice.parity.queries;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

/**
 * Kafka Streams' answers to window and session store queries: a windowed and a session
 * count fed the records of the input file, then each query of the file asked of the
 * driver's stores. Reads {records, windowQueries, sessionQueries, settings}, writes the answers.
 */
public final class StoreQueries {
  public static void main(String[] args) throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    JsonNode input = mapper.readTree(new File(args[0]));
    JsonNode s = input.get("settings");
    StreamsBuilder builder = new StreamsBuilder();
    KGroupedStream<String, String> grouped = builder.stream("in", Consumed.with(Serdes.String(), Serdes.String())).groupByKey();
    grouped
        .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(s.get("windowSizeMs").asLong()), Duration.ofMillis(s.get("graceMs").asLong())))
        .count(Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("win").withRetention(Duration.ofMillis(s.get("retentionMs").asLong())));
    grouped
        .windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofMillis(s.get("gapMs").asLong()), Duration.ofMillis(s.get("graceMs").asLong())))
        .count(Materialized.<String, Long, SessionStore<Bytes, byte[]>>as("sess").withRetention(Duration.ofMillis(s.get("retentionMs").asLong())));
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "test-app");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("sluice-store-queries").toString());
    ObjectNode out = mapper.createObjectNode();
    try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props, Instant.EPOCH)) {
      TestInputTopic<String, String> in = driver.createInputTopic("in", new StringSerializer(), new StringSerializer());
      for (JsonNode r : input.get("records")) in.pipeInput(r.get("key").asText(), "x", r.get("ts").asLong());
      WindowStore<String, Long> win = driver.getWindowStore("win");
      SessionStore<String, Long> sess = driver.getSessionStore("sess");
      ArrayNode windows = out.putArray("windowQueries");
      for (JsonNode q : input.get("windowQueries")) {
        String key = q.get("key").asText();
        long from = q.get("from").asLong();
        long to = q.get("to").asLong();
        ObjectNode a = windows.addObject();
        a.set("fetch", startsAndValues(mapper, win.fetch(key, Instant.ofEpochMilli(from), Instant.ofEpochMilli(to))));
        a.set("backwardFetch", startsAndValues(mapper, win.backwardFetch(key, Instant.ofEpochMilli(from), Instant.ofEpochMilli(to))));
        Long one = win.fetch(key, from);
        if (one == null) a.putNull("fetchOne");
        else a.put("fetchOne", one);
        a.set("fetchAll", windowed(mapper, win.fetchAll(Instant.ofEpochMilli(from), Instant.ofEpochMilli(to))));
      }
      out.set("all", windowed(mapper, win.all()));
      ArrayNode sessions = out.putArray("sessionQueries");
      for (JsonNode q : input.get("sessionQueries")) {
        String key = q.get("key").asText();
        ObjectNode a = sessions.addObject();
        a.set("fetch", windowed(mapper, sess.fetch(key)));
        a.set("findSessions", windowed(mapper, sess.findSessions(key, q.get("earliestEnd").asLong(), q.get("latestStart").asLong())));
        a.set("backwardFindSessions", windowed(mapper, sess.backwardFindSessions(key, q.get("earliestEnd").asLong(), q.get("latestStart").asLong())));
      }
    }
    mapper.writeValue(new File(args[1]), out);
  }

  private static ArrayNode startsAndValues(ObjectMapper mapper, WindowStoreIterator<Long> it) {
    ArrayNode list = mapper.createArrayNode();
    try (it) {
      while (it.hasNext()) {
        KeyValue<Long, Long> kv = it.next();
        list.addArray().add(kv.key).add(kv.value);
      }
    }
    return list;
  }

  private static ArrayNode windowed(ObjectMapper mapper, KeyValueIterator<Windowed<String>, Long> it) {
    ArrayNode list = mapper.createArrayNode();
    try (it) {
      while (it.hasNext()) {
        KeyValue<Windowed<String>, Long> kv = it.next();
        list.addArray().add(kv.key.key()).add(kv.key.window().start()).add(kv.key.window().end()).add(kv.value);
      }
    }
    return list;
  }
}

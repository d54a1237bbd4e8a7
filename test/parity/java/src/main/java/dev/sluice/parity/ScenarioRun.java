package dev.sluice.parity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.LogAndContinueProcessingExceptionHandler;
import org.apache.kafka.streams.kstream.SessionWindowedDeserializer;
import org.apache.kafka.streams.kstream.TimeWindowedDeserializer;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.test.TestRecord;

/** One scenario on one TopologyTestDriver: pipes its steps in order and reads every output topic after each step. */
final class ScenarioRun {
    private final JsonNode scenario;
    private final Consumer<StreamsBuilder> topology;
    private final ObjectMapper json;

    ScenarioRun(JsonNode scenario, Consumer<StreamsBuilder> topology, ObjectMapper json) {
        this.scenario = scenario;
        this.topology = topology;
        this.json = json;
    }

    ArrayNode run() throws Exception {
        StreamsBuilder builder = new StreamsBuilder();
        topology.accept(builder);
        Path stateDir = Files.createTempDirectory("sluice-parity-");
        ArrayNode records = json.createArrayNode();
        try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), config(stateDir), Instant.ofEpochMilli(0))) {
            Map<String, TestInputTopic<String, String>> inputs = new HashMap<>();
            Map<String, Output> outputs = new LinkedHashMap<>();
            for (JsonNode spec : scenario.get("outputs")) outputs.put(spec.get("topic").asText(), new Output(driver, spec));
            int step = 0;
            for (JsonNode s : scenario.get("steps")) {
                if (s.has("advanceMs")) {
                    driver.advanceWallClockTime(Duration.ofMillis(s.get("advanceMs").asLong()));
                } else {
                    String topic = s.get("topic").asText();
                    TestInputTopic<String, String> in = inputs.computeIfAbsent(topic,
                        t -> driver.createInputTopic(t, new StringSerializer(), new StringSerializer()));
                    in.pipeInput(new TestRecord<>(text(s, "key"), text(s, "value"), headers(s), Instant.ofEpochMilli(s.get("timestamp").asLong())));
                }
                for (Output out : outputs.values()) out.drainInto(records, step);
                step++;
            }
        } finally {
            try (Stream<Path> paths = Files.walk(stateDir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        return records;
    }

    private Properties config(Path stateDir) {
        JsonNode config = scenario.path("config");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "test-app");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        // Emit-on-close results and the null results of left and outer stream-stream joins are
        // checked at most once per second of wall-clock time by default; the driver's wall clock
        // only moves on advanceWallClockTime, so the check runs on every record here, as Sluice's does.
        props.put(StreamsConfig.InternalConfig.EMIT_INTERVAL_MS_KSTREAMS_WINDOWED_AGGREGATION, 0L);
        props.put(StreamsConfig.InternalConfig.EMIT_INTERVAL_MS_KSTREAMS_OUTER_JOIN_SPURIOUS_RESULTS_FIX, 0L);
        if (config.has("cacheMaxBytes")) props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, config.get("cacheMaxBytes").asLong());
        if ("continue".equals(config.path("processingErrors").asText(null))) {
            props.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, LogAndContinueProcessingExceptionHandler.class);
        }
        if (config.has("maxTaskIdleMs")) props.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, config.get("maxTaskIdleMs").asLong());
        return props;
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    private static RecordHeaders headers(JsonNode step) {
        RecordHeaders headers = new RecordHeaders();
        JsonNode h = step.get("headers");
        if (h != null) h.fields().forEachRemaining(e -> headers.add(e.getKey(), e.getValue().asText().getBytes(StandardCharsets.UTF_8)));
        return headers;
    }

    /** One output topic, read with the deserializers its spec names, written out in the exchange format. */
    private final class Output {
        private final String topic;
        private final TestOutputTopic<Object, Object> reader;
        private final boolean withHeaders;

        @SuppressWarnings("unchecked")
        Output(TopologyTestDriver driver, JsonNode spec) {
            topic = spec.get("topic").asText();
            withHeaders = spec.path("headers").asBoolean(false);
            Deserializer<?> key = switch (spec.get("key").asText()) {
                case "string" -> new StringDeserializer();
                case "long" -> new LongDeserializer();
                case "time-windowed" -> new TimeWindowedDeserializer<>(new StringDeserializer(), spec.get("windowSizeMs").asLong());
                case "session-windowed" -> new SessionWindowedDeserializer<>(new StringDeserializer());
                default -> throw new IllegalArgumentException("Unknown key kind " + spec.get("key"));
            };
            Deserializer<?> value = switch (spec.get("value").asText()) {
                case "string" -> new StringDeserializer();
                case "long" -> new LongDeserializer();
                default -> throw new IllegalArgumentException("Unknown value kind " + spec.get("value"));
            };
            reader = driver.createOutputTopic(topic, (Deserializer<Object>) key, (Deserializer<Object>) value);
        }

        void drainInto(ArrayNode records, int step) {
            while (!reader.isEmpty()) {
                TestRecord<Object, Object> r = reader.readRecord();
                ObjectNode out = records.addObject();
                out.put("topic", topic);
                out.put("step", step);
                Object key = r.key();
                if (key instanceof Windowed<?> w) {
                    out.put("key", String.valueOf(w.key()));
                    ObjectNode window = out.putObject("window");
                    window.put("start", w.window().start());
                    window.put("end", w.window().end());
                } else {
                    out.put("key", key == null ? null : key.toString());
                }
                out.put("value", r.value() == null ? null : r.value().toString());
                out.put("timestamp", r.timestamp());
                if (withHeaders) {
                    ObjectNode h = out.putObject("headers");
                    for (Header header : r.headers()) {
                        h.put(header.key(), header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8));
                    }
                }
            }
        }
    }
}

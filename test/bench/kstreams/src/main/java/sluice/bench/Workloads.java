package sluice.bench;

import java.time.Duration;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;

/**
 * The Kafka Streams side of the workloads in test/bench/peer-workloads.ts: same names, same
 * windows, same output format (string keys and values; windowed keys "key@windowStart"),
 * so one verifier checks all three systems.
 */
final class Workloads {
  // Must equal the constants in test/bench/peer-workloads.ts.
  static final Duration WINDOW = Duration.ofMillis(60_000);
  static final Duration ADVANCE = Duration.ofMillis(30_000);
  static final Duration GRACE = Duration.ofMillis(5_000);
  static final Duration SESSION_GAP = Duration.ofMillis(15_000);
  static final Duration JOIN_WINDOW = Duration.ofMillis(15_000);

  private static final Consumed<String, String> STRINGS = Consumed.with(Serdes.String(), Serdes.String());
  private static final Produced<String, String> OUT = Produced.with(Serdes.String(), Serdes.String());

  static Topology build(String workload, String input, String table, String output) {
    StreamsBuilder b = new StreamsBuilder();
    switch (workload) {
      case "passthrough" -> b.stream(input, Consumed.with(Serdes.Bytes(), Serdes.Bytes())).to(output, Produced.with(Serdes.Bytes(), Serdes.Bytes()));
      case "map-filter" -> b.stream(input, STRINGS).filter((k, v) -> n(v) % 2 == 0).mapValues(v -> v.toUpperCase()).to(output, OUT);
      case "count-10k-keys", "count-1m-keys" -> b.stream(input, Consumed.with(Serdes.String(), Serdes.Bytes())).groupByKey().count()
          .toStream().mapValues(c -> String.valueOf(c)).to(output, OUT);
      case "tumbling-count" -> windowed(b.stream(input, STRINGS).groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(WINDOW, GRACE)).count().toStream(), output);
      case "hopping-count" -> windowed(b.stream(input, STRINGS).groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(WINDOW, GRACE).advanceBy(ADVANCE)).count().toStream(), output);
      case "session-count" -> b.stream(input, STRINGS).groupByKey().windowedBy(SessionWindows.ofInactivityGapAndGrace(SESSION_GAP, GRACE)).count().toStream()
          .map((w, c) -> KeyValue.pair(w.key() + "@" + w.window().start(), c == null ? null : String.valueOf(c))).to(output, OUT);
      case "stream-table-join" -> {
        KTable<String, String> rows = b.table(table, STRINGS);
        b.stream(input, STRINGS).join(rows, (v, row) -> n(v) + ":" + row).to(output, OUT);
      }
      case "stream-stream-join" -> {
        KStream<String, String> left = b.stream(Runner.env("LEFT"), STRINGS);
        KStream<String, String> right = b.stream(Runner.env("RIGHT"), STRINGS);
        left.join(right, (l, r) -> n(l) + ":" + n(r), JoinWindows.ofTimeDifferenceAndGrace(JOIN_WINDOW, GRACE), StreamJoined.with(Serdes.String(), Serdes.String(), Serdes.String()))
            .to(output, OUT);
      }
      default -> throw new IllegalArgumentException("unknown workload " + workload);
    }
    return b.build();
  }

  private static void windowed(KStream<Windowed<String>, Long> counts, String output) {
    counts.map((w, c) -> KeyValue.pair(w.key() + "@" + w.window().start(), String.valueOf(c))).to(output, OUT);
  }

  /** The record number at the head of a value "<n>,<payload>". */
  static long n(String value) {
    return Long.parseLong(value.substring(0, value.indexOf(',')));
  }

}

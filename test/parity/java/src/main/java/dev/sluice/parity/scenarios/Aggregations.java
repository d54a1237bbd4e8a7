package dev.sluice.parity.scenarios;

import static dev.sluice.parity.scenarios.Common.*;

import dev.sluice.parity.Registry;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.Materialized;

/** Twins of test/parity/scenarios/aggregations.ts. */
public final class Aggregations {
    public static void register(Registry r) {
        r.add("count-by-key", b -> b.stream("in", STRINGS).groupByKey().count().toStream().to("out", TO_LONGS));

        r.add("count-caching-disabled", b -> b.stream("in", STRINGS).groupByKey()
            .count(longStore("counts").withCachingDisabled()).toStream().to("out", TO_LONGS));

        r.add("count-cache-zero-bytes", b -> b.stream("in", STRINGS).groupByKey().count().toStream().to("out", TO_LONGS));

        r.add("reduce-sum", b -> b.stream("in", STRINGS).groupByKey(GROUPED_STRINGS)
            .reduce(Common::sum, stringStore("sums")).toStream().to("out", TO_STRINGS));

        r.add("aggregate-after-group-by", b -> b.stream("in", STRINGS)
            .groupBy((k, v) -> v == null ? null : Long.parseLong(v) % 2 == 0 ? "even" : "odd", GROUPED_STRINGS)
            .aggregate(() -> "", (k, v, agg) -> agg + v, Materialized.with(Serdes.String(), Serdes.String()))
            .toStream().to("out", TO_STRINGS));

        r.add("cogroup-two-streams", b -> {
            KGroupedStream<String, String> left = b.stream("left", STRINGS).groupByKey(GROUPED_STRINGS);
            KGroupedStream<String, String> right = b.stream("right", STRINGS).groupByKey(GROUPED_STRINGS);
            left.<String>cogroup((k, v, agg) -> agg + "L" + v)
                .cogroup(right, (k, v, agg) -> agg + "R" + v)
                .aggregate(() -> "", Materialized.with(Serdes.String(), Serdes.String()))
                .toStream().to("out", TO_STRINGS);
        });

        r.add("fan-out-count-cached", b -> fanOutCount(b, null));
        r.add("fan-out-count-caching-disabled", b -> fanOutCount(b, longStore("counts").withCachingDisabled()));
        r.add("fan-out-count-cache-off", b -> fanOutCount(b, null));

        r.add("fan-out-repartition-count-cached", b -> b.stream("in", STRINGS)
            .flatMap((k, v) -> List.of(KeyValue.pair(v, k), KeyValue.pair(v, k), KeyValue.pair(v, k)))
            .groupByKey(GROUPED_STRINGS)
            .count()
            .toStream()
            .to("out", TO_LONGS));

        r.add("cogroup-with-repartition", b -> {
            KGroupedStream<String, String> left = b.stream("left", STRINGS).groupByKey(GROUPED_STRINGS);
            KGroupedStream<String, String> right = b.stream("right", STRINGS).groupBy((k, v) -> k.substring(0, 1), GROUPED_STRINGS);
            left.<String>cogroup((k, v, agg) -> agg + "L" + v)
                .cogroup(right, (k, v, agg) -> agg + "R" + v)
                .aggregate(() -> "", Materialized.with(Serdes.String(), Serdes.String()))
                .toStream().to("out", TO_STRINGS);
        });

        r.add("reduce-headers", b -> b.stream("in", STRINGS).groupByKey(GROUPED_STRINGS)
            .reduce(Common::sum, stringStore("sums")).toStream().to("out", TO_STRINGS));
    }

    private static void fanOutCount(StreamsBuilder b, Materialized<String, Long, KeyValueStore<Bytes, byte[]>> store) {
        KGroupedStream<String, String> grouped = b.stream("in", STRINGS).flatMapValues(v -> List.of(v, v, v)).groupByKey();
        (store == null ? grouped.count() : grouped.count(store)).toStream().to("out", TO_LONGS);
    }
}

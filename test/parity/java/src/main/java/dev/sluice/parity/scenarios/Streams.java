package dev.sluice.parity.scenarios;

import static dev.sluice.parity.scenarios.Common.*;

import dev.sluice.parity.Registry;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Joined;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Repartitioned;

/** Twins of test/parity/scenarios/streams.ts. */
public final class Streams {
    public static void register(Registry r) {
        r.add("split-and-merge", b -> {
            Map<String, KStream<String, String>> branches = b.stream("in", STRINGS)
                .split(Named.as("split-"))
                .branch((k, v) -> v != null && Long.parseLong(v) > 6, Branched.withFunction(s -> s.mapValues(v -> "big:" + v), "big"))
                .branch((k, v) -> v != null && Long.parseLong(v) % 2 == 0, Branched.withFunction(s -> s.mapValues(v -> "even:" + v), "even"))
                .defaultBranch(Branched.as("rest"));
            branches.get("split-big").merge(branches.get("split-even")).merge(branches.get("split-rest")).to("out", TO_STRINGS);
        });

        r.add("split-to-topics", b -> b.stream("in", STRINGS)
            .split()
            .branch((k, v) -> v != null && Long.parseLong(v) > 6, Branched.withConsumer(s -> s.to("big", TO_STRINGS)))
            .branch((k, v) -> v != null && Long.parseLong(v) < 3, Branched.withConsumer(s -> s.to("small", TO_STRINGS)))
            .noDefaultBranch());

        r.add("repartition-then-count", b -> b.stream("in", STRINGS)
            .selectKey((k, v) -> v)
            .repartition(Repartitioned.with(Serdes.String(), Serdes.String()))
            .groupByKey()
            .count()
            .toStream()
            .to("out", TO_LONGS));

        r.add("merge-two-topics-count", b -> b.stream("one", STRINGS).merge(b.stream("two", STRINGS))
            .groupByKey().count().toStream().to("out", TO_LONGS));

        r.add("stateless-chain-headers", b -> b.stream("in", STRINGS)
            .filter((k, v) -> !"5".equals(v))
            .mapValues(v -> "v" + v)
            .flatMapValues(v -> List.of(v, v + "!"))
            .selectKey((k, v) -> k + "-" + v.length())
            .to("out", TO_STRINGS));

        r.add("stream-table-join-task-idling", Streams::idlingJoin);
        r.add("stream-table-join-without-idling", Streams::idlingJoin);
    }

    private static void idlingJoin(StreamsBuilder b) {
        KTable<String, String> users = b.table("users", STRINGS);
        b.stream("orders", STRINGS)
            .leftJoin(users, (o, u) -> o + "+" + u, Joined.with(Serdes.String(), Serdes.String(), Serdes.String()))
            .to("out", TO_STRINGS);
    }
}

package dev.sluice.parity.scenarios;

import dev.sluice.parity.Registry;
import dev.sluice.parity.scenarios.Windows.Emit;
import dev.sluice.parity.scenarios.Windows.Op;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.SlidingWindows;
import org.apache.kafka.streams.kstream.TimeWindows;

/** Twins of test/parity/scenarios/sweep.ts: the same topologies under every seed there. */
public final class Sweep {
    private static final int[] SEEDS = {901, 902, 903, 904};

    public static void register(Registry r) {
        Map<String, Consumer<StreamsBuilder>> bases = Map.of(
            "stream-stream-outer", b -> StreamJoins.join(b, StreamJoins.Kind.OUTER, JoinWindows.ofTimeDifferenceAndGrace(ms(200), ms(100))),
            "session-concat-update-uncached", b -> Windows.sessionWindowed(b, SessionWindows.ofInactivityGapAndGrace(ms(300), ms(200)), Emit.UPDATE, Op.CONCAT, false, null),
            "hopping-count-suppress", b -> Windows.timeWindowed(b, TimeWindows.ofSizeAndGrace(ms(1000), ms(200)).advanceBy(ms(300)), 1000, Emit.SUPPRESS, Op.COUNT, true, null),
            "sliding-count-update", b -> Windows.slidingWindowed(b, SlidingWindows.ofTimeDifferenceAndGrace(ms(500), ms(300)), 500, Emit.UPDATE, Op.COUNT),
            "foreign-key-left", b -> TableJoins.foreignKeyJoin(b, TableJoins.Kind.LEFT),
            "table-table-outer", b -> TableJoins.tableTable(b, TableJoins.Kind.OUTER),
            "table-group-by-aggregate", Tables::prefixTrail);
        bases.forEach((name, topology) -> {
            for (int seed : SEEDS) r.add("sweep-" + name + "-" + seed, topology);
        });
    }

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }
}

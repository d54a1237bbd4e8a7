package dev.sluice.parity.scenarios;

import dev.sluice.parity.Registry;
import dev.sluice.parity.scenarios.StreamJoins.Kind;
import dev.sluice.parity.scenarios.Windows.Emit;
import dev.sluice.parity.scenarios.Windows.Op;
import java.time.Duration;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.SlidingWindows;
import org.apache.kafka.streams.kstream.TimeWindows;

/** Twins of test/parity/scenarios/boundaries.ts (the inputs are written there). */
public final class Boundaries {
    public static void register(Registry r) {
        for (Emit emit : new Emit[] {Emit.UPDATE, Emit.CLOSE, Emit.SUPPRESS}) {
            r.add("boundary-tumbling-" + name(emit), b -> Windows.timeWindowed(b, TimeWindows.ofSizeAndGrace(ms(1000), ms(200)), 1000, emit, Op.COUNT, true, null));
        }
        for (Emit emit : new Emit[] {Emit.UPDATE, Emit.CLOSE}) {
            r.add("boundary-sliding-" + name(emit), b -> Windows.slidingWindowed(b, SlidingWindows.ofTimeDifferenceAndGrace(ms(500), ms(100)), 500, emit, Op.COUNT));
            r.add("boundary-session-" + name(emit) + "-uncached", b -> Windows.sessionWindowed(b, SessionWindows.ofInactivityGapAndGrace(ms(300), ms(100)), emit, Op.COUNT, false, null));
        }
        for (Kind kind : Kind.values()) {
            r.add("boundary-join-" + kind.name().toLowerCase(), b -> StreamJoins.join(b, kind, JoinWindows.ofTimeDifferenceAndGrace(ms(100), ms(50))));
        }
    }

    private static String name(Emit emit) {
        return emit.name().toLowerCase();
    }

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }
}

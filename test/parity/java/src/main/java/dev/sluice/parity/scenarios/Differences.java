package dev.sluice.parity.scenarios;

import dev.sluice.parity.Registry;
import dev.sluice.parity.scenarios.Windows.Emit;
import dev.sluice.parity.scenarios.Windows.Op;
import java.time.Duration;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.SlidingWindows;

/** Kept differences (docs/differences.md); the TypeScript twins check how the outputs differ. */
public final class Differences {
    private Differences() {}

    public static void register(Registry r) {
        r.add("difference-sliding-close-after-time-jump",
            b -> Windows.slidingWindowed(b, SlidingWindows.ofTimeDifferenceAndGrace(ms(500), ms(300)), 500, Emit.CLOSE, Op.COUNT));
        r.add("difference-session-count-nograce-update-cached",
            b -> Windows.sessionWindowed(b, SessionWindows.ofInactivityGapWithNoGrace(ms(300)), Emit.UPDATE, Op.COUNT, true, null));
    }

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }
}

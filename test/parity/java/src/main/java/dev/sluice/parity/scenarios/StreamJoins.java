package dev.sluice.parity.scenarios;

import dev.sluice.parity.Registry;

public final class StreamJoins {
    public static void register(Registry r) {}
}

package dev.sluice.parity.scenarios;

import dev.sluice.parity.Registry;

public final class TableJoins {
    public static void register(Registry r) {}
}

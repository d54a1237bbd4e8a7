package dev.sluice.parity.scenarios;

import dev.sluice.parity.Registry;

public final class Windows {
    public static void register(Registry r) {}
}

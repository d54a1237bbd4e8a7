package dev.sluice.parity;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.streams.StreamsBuilder;

/** Every scenario's Kafka Streams topology, by the name its TypeScript twin has. */
public final class Registry {
    private final Map<String, Consumer<StreamsBuilder>> topologies = new LinkedHashMap<>();

    public void add(String name, Consumer<StreamsBuilder> topology) {
        if (topologies.putIfAbsent(name, topology) != null) {
            throw new IllegalStateException("Scenario \"" + name + "\" is registered twice; scenario names must be unique.");
        }
    }

    Consumer<StreamsBuilder> get(String name) {
        return topologies.get(name);
    }

    /** All scenario areas; a new area class registers here. */
    static Registry all() {
        Registry registry = new Registry();
        dev.sluice.parity.scenarios.Aggregations.register(registry);
        dev.sluice.parity.scenarios.Windows.register(registry);
        dev.sluice.parity.scenarios.StreamJoins.register(registry);
        dev.sluice.parity.scenarios.TableJoins.register(registry);
        dev.sluice.parity.scenarios.Tables.register(registry);
        dev.sluice.parity.scenarios.Streams.register(registry);
        dev.sluice.parity.scenarios.Boundaries.register(registry);
        dev.sluice.parity.scenarios.Sweep.register(registry);
        dev.sluice.parity.scenarios.Requests.register(registry);
        dev.sluice.parity.scenarios.Differences.register(registry);
        return registry;
    }
}

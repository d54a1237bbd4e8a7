package dev.sluice.parity.scenarios;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;

/** The serdes every scenario speaks (as test/parity/scenarios/common.ts): string keys and values, longs for counts. */
final class Common {
    static final Consumed<String, String> STRINGS = Consumed.with(Serdes.String(), Serdes.String());
    static final Produced<String, String> TO_STRINGS = Produced.with(Serdes.String(), Serdes.String());
    static final Produced<String, Long> TO_LONGS = Produced.with(Serdes.String(), Serdes.Long());
    static final Grouped<String, String> GROUPED_STRINGS = Grouped.with(Serdes.String(), Serdes.String());

    static Materialized<String, String, KeyValueStore<Bytes, byte[]>> stringStore(String name) {
        return Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as(name).withKeySerde(Serdes.String()).withValueSerde(Serdes.String());
    }

    static Materialized<String, Long, KeyValueStore<Bytes, byte[]>> longStore(String name) {
        return Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as(name).withKeySerde(Serdes.String()).withValueSerde(Serdes.Long());
    }

    static String sum(String a, String b) {
        return String.valueOf(Long.parseLong(a) + Long.parseLong(b));
    }

    private Common() {}
}

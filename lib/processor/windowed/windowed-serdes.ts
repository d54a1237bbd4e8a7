import type { Serde } from "../../serdes/index.ts";
import type { Windowed } from "../../state/index.ts";

/**
 * Serdes for windowed keys, in Kafka Streams' byte layouts so Java consumers can read the
 * topics: a time-windowed key is `[key][window start: int64 BE]` (the end is start + size,
 * so the size must be known to read it back); a session-windowed key is
 * `[key][session end: int64 BE][session start: int64 BE]`.
 *
 * @example
 *   counts.toStream().to("counts-per-minute",
 *     Produced.with(WindowedSerdes.timeWindowed(Serdes.string(), 60_000), Serdes.json<number>()));
 */
export const WindowedSerdes = {
  timeWindowed<K>(keySerde: Serde<K>, windowSizeMs: number): Serde<Windowed<K>> {
    return windowedSerde(`timeWindowed(${keySerde.name})`, keySerde, 1, (r) => {
      const start = Number(r.readBigInt64BE(r.length - 8));
      return { startMs: start, endMs: start + windowSizeMs };
    });
  },
  sessionWindowed<K>(keySerde: Serde<K>): Serde<Windowed<K>> {
    return windowedSerde(`sessionWindowed(${keySerde.name})`, keySerde, 2, (r) => ({
      startMs: Number(r.readBigInt64BE(r.length - 8)),
      endMs: Number(r.readBigInt64BE(r.length - 16)),
    }));
  },
};

function windowedSerde<K>(
  name: string,
  keySerde: Serde<K>,
  longs: 1 | 2,
  readWindow: (data: Buffer) => { startMs: number; endMs: number },
): Serde<Windowed<K>> {
  const suffix = 8 * longs;
  return {
    name,
    serialize(topic, value) {
      if (value === null) return null;
      const key = keySerde.serialize(topic, value.key) ?? Buffer.alloc(0);
      const out = Buffer.allocUnsafe(key.length + suffix);
      key.copy(out, 0);
      if (longs === 1) out.writeBigInt64BE(BigInt(value.window.startMs), key.length);
      else {
        out.writeBigInt64BE(BigInt(value.window.endMs), key.length);
        out.writeBigInt64BE(BigInt(value.window.startMs), key.length + 8);
      }
      return out;
    },
    deserialize(topic, data) {
      if (data === null) return null;
      if (data.length < suffix) throw new RangeError(`${name}: ${data.length} bytes cannot hold a windowed key (at least ${suffix})`);
      const key = keySerde.deserialize(topic, data.subarray(0, data.length - suffix)) as K;
      return { key, window: readWindow(data) };
    },
  };
}

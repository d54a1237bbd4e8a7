import { SerdeError, serdeFrom, type Serde } from "./serde.ts";

// A fatal decoder: invalid UTF-8 is corrupt data, not something to paper over with U+FFFD.
const utf8 = new TextDecoder("utf-8", { fatal: true });

function fixedWidth(name: string, width: number, topic: string, data: Buffer): void {
  if (data.length !== width) {
    throw new SerdeError(name, topic, `expected exactly ${width} bytes, got ${data.length}`);
  }
}

const stringSerde: Serde<string> = {
  ...serdeFrom<string>("string", {
    serialize: (value) => Buffer.from(value, "utf8"),
    deserialize: (data) => utf8.decode(data),
  }),
  utf8String: true,
};

const bytesSerde: Serde<Buffer> = serdeFrom<Buffer>("bytes", {
  serialize: (value) => value,
  deserialize: (data) => data,
});

const int32Serde: Serde<number> = serdeFrom<number>("int32", {
  serialize(value, topic) {
    if (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) {
      throw new SerdeError("int32", topic, `${value} is not a 32-bit integer`);
    }
    const out = Buffer.allocUnsafe(4);
    out.writeInt32BE(value, 0);
    return out;
  },
  deserialize(data, topic) {
    fixedWidth("int32", 4, topic, data);
    return data.readInt32BE(0);
  },
});

// Computed once: a BigInt power per serialized value was a visible cost of every count.
const INT64_MIN = -(2n ** 63n);
const INT64_END = 2n ** 63n;
const SAFE_MIN = BigInt(Number.MIN_SAFE_INTEGER);
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);
const TWO_POW_32 = 4294967296;
/** A high half within ±2^21 keeps hi * 2^32 + lo a safe integer. */
const SAFE_HIGH_HALF = 2 ** 21;

// Node's BigInt writer and reader shift and mask BigInts (several allocations per value);
// a count is a safe integer, so it goes through two 32-bit halves of a Number instead.
const int64Serde: Serde<bigint> = serdeFrom<bigint>("int64", {
  serialize(value, topic) {
    if (typeof value !== "bigint" || value < INT64_MIN || value >= INT64_END) {
      throw new SerdeError("int64", topic, `${String(value)} is not a 64-bit integer (bigint)`);
    }
    const out = Buffer.allocUnsafe(8);
    if (value < SAFE_MIN || value > SAFE_MAX) {
      out.writeBigInt64BE(value, 0);
      return out;
    }
    const n = Number(value);
    out.writeInt32BE(Math.floor(n / TWO_POW_32), 0);
    out.writeUInt32BE(n >>> 0, 4);
    return out;
  },
  deserialize(data, topic) {
    fixedWidth("int64", 8, topic, data);
    const high = data.readInt32BE(0);
    if (high >= SAFE_HIGH_HALF || high < -SAFE_HIGH_HALF) return data.readBigInt64BE(0);
    return BigInt(high * TWO_POW_32 + data.readUInt32BE(4));
  },
});

const doubleSerde: Serde<number> = serdeFrom<number>("double", {
  serialize(value, topic) {
    if (typeof value !== "number") throw new SerdeError("double", topic, `${String(value)} is not a number`);
    const out = Buffer.allocUnsafe(8);
    out.writeDoubleBE(value, 0);
    return out;
  },
  deserialize(data, topic) {
    fixedWidth("double", 8, topic, data);
    return data.readDoubleBE(0);
  },
});

/**
 * The built-in serdes. Their byte layouts match Kafka's own (big-endian integers and
 * doubles, UTF-8 strings), so topics can be shared with Java applications.
 *
 * @example
 *   builder.stream("payments", Consumed.with(Serdes.string(), Serdes.json<Payment>()));
 */
export const Serdes = {
  /** UTF-8 text; invalid UTF-8 is an error rather than replacement characters. */
  string: (): Serde<string> => stringSerde,
  /** JSON text in UTF-8. The type parameter is trusted, not checked. */
  json<T>(): Serde<T> {
    return serdeFrom<T>("json", {
      serialize(value, topic) {
        const text = JSON.stringify(value);
        if (text === undefined) throw new SerdeError("json", topic, `a ${typeof value} has no JSON form`);
        return Buffer.from(text, "utf8");
      },
      deserialize: (data) => JSON.parse(utf8.decode(data)) as T,
    });
  },
  /** Raw bytes, unchanged. */
  bytes: (): Serde<Buffer> => bytesSerde,
  /** Signed 32-bit big-endian integer (Kafka's IntegerSerde). */
  int32: (): Serde<number> => int32Serde,
  /** Signed 64-bit big-endian integer as a bigint (Kafka's LongSerde). */
  int64: (): Serde<bigint> => int64Serde,
  /** IEEE 754 double, big-endian (Kafka's DoubleSerde). */
  double: (): Serde<number> => doubleSerde,
  /** A user-defined serde; see {@link serdeFrom}. */
  from: serdeFrom,
} as const;

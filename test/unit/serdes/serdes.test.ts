import { describe, expect, it } from "vitest";
import { SerdeError, Serdes, serdeFrom, type Serde } from "../../../lib/serdes/index.ts";

function roundTrip<T>(serde: Serde<T>, value: T | null): T | null {
  return serde.deserialize("t", serde.serialize("t", value));
}

describe("built-in serdes", () => {
  it.each([
    ["string", Serdes.string(), "héllo ✓"],
    ["json", Serdes.json<{ a: number[] }>(), { a: [1, 2] }],
    ["bytes", Serdes.bytes(), Buffer.from([0, 255, 7])],
    ["int32", Serdes.int32(), -123456],
    ["int64", Serdes.int64(), -(2n ** 62n)],
    ["double", Serdes.double(), 3.25],
  ] as const)("%s round-trips values and tombstones", (_name, serde, value) => {
    const s = serde as Serde<unknown>;
    expect(roundTrip(s, value)).toEqual(value);
    expect(s.serialize("t", null)).toBeNull();
    expect(s.deserialize("t", null)).toBeNull();
  });

  it("uses Kafka's big-endian layouts", () => {
    expect(Serdes.int32().serialize("t", 1)).toEqual(Buffer.from([0, 0, 0, 1]));
    expect(Serdes.int64().serialize("t", 258n)).toEqual(Buffer.from([0, 0, 0, 0, 0, 0, 1, 2]));
    expect(Serdes.double().serialize("t", 1)).toEqual(Buffer.from([0x3f, 0xf0, 0, 0, 0, 0, 0, 0]));
  });

  it("writes and reads int64 as Node's BigInt methods do, across and beyond the safe range", () => {
    // Seeded, so a failure names a value that reproduces.
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const safe = BigInt(Number.MAX_SAFE_INTEGER);
    const edges = [0n, 1n, -1n, 2n ** 32n - 1n, 2n ** 32n, -(2n ** 32n), -(2n ** 32n) - 1n, safe, -safe, safe + 1n, -safe - 1n, -(2n ** 53n), 2n ** 53n, 2n ** 63n - 1n, -(2n ** 63n)];
    const randoms = Array.from({ length: 2000 }, (_, i) => {
      // 64 random bits, shifted right (sign kept) to every width, low bits still random.
      const bits = (BigInt(Math.floor(random() * 2 ** 32)) << 32n) | BigInt(Math.floor(random() * 2 ** 32));
      return BigInt.asIntN(64, bits) >> BigInt(i % 64);
    });
    for (const value of [...edges, ...randoms]) {
      const expected = Buffer.alloc(8);
      expected.writeBigInt64BE(value);
      expect(Serdes.int64().serialize("t", value), String(value)).toEqual(expected);
      expect(Serdes.int64().deserialize("t", expected), String(value)).toBe(value);
    }
  });

  it("rejects bytes of the wrong width with a SerdeError naming the serde and topic", () => {
    expect(() => Serdes.int32().deserialize("orders", Buffer.from([1, 2, 3]))).toThrow(SerdeError);
    expect(() => Serdes.int32().deserialize("orders", Buffer.from([1, 2, 3]))).toThrow(
      'Serde "int32" failed on topic "orders": expected exactly 4 bytes, got 3',
    );
    expect(() => Serdes.int64().deserialize("t", Buffer.alloc(4))).toThrow(/int64.*expected exactly 8 bytes/);
    expect(() => Serdes.double().deserialize("t", Buffer.alloc(9))).toThrow(/double.*expected exactly 8 bytes/);
  });

  it("rejects invalid UTF-8 and malformed JSON", () => {
    expect(() => Serdes.string().deserialize("t", Buffer.from([0xff, 0xfe]))).toThrow(/Serde "string"/);
    expect(() => Serdes.json().deserialize("t", Buffer.from("{oops"))).toThrow(/Serde "json".*cannot deserialize 5 bytes/);
  });

  it("refuses to serialize values outside the type's range", () => {
    expect(() => Serdes.int32().serialize("t", 2 ** 31)).toThrow(/not a 32-bit integer/);
    expect(() => Serdes.int32().serialize("t", 1.5)).toThrow(SerdeError);
    expect(() => Serdes.int64().serialize("t", 2n ** 63n)).toThrow(/not a 64-bit integer/);
    expect(() => Serdes.json().serialize("t", undefined)).toThrow(/no JSON form/);
  });
});

describe("user-defined serdes", () => {
  const point = serdeFrom<{ x: number; y: number }>("point", {
    serialize: (p) => Buffer.from(`${p.x},${p.y}`),
    deserialize(b) {
      const parts = b.toString().split(",").map(Number);
      if (parts.length !== 2 || parts.some(Number.isNaN)) throw new Error("want x,y");
      return { x: parts[0]!, y: parts[1]! };
    },
  });

  it("round-trips and keeps tombstones away from the user's functions", () => {
    expect(roundTrip(point, { x: 1, y: -2 })).toEqual({ x: 1, y: -2 });
    expect(roundTrip(point, null)).toBeNull();
  });

  it("wraps the user's errors in a SerdeError naming the serde", () => {
    const failure = (() => {
      try {
        point.deserialize("pts", Buffer.from("nope"));
      } catch (e) {
        return e;
      }
    })();
    expect(failure).toBeInstanceOf(SerdeError);
    expect((failure as SerdeError).message).toBe('Serde "point" failed on topic "pts": cannot deserialize 4 bytes: want x,y');
    expect((failure as SerdeError).cause).toBeInstanceOf(Error);
    expect(Serdes.from).toBe(serdeFrom);
  });
});

/**
 * A Serde turns values of one type into bytes and back. `null` is the tombstone: it
 * always serializes to `null` and deserializes from `null`, so deletes survive every hop.
 *
 * @example
 *   const s = Serdes.string();
 *   s.deserialize("orders", s.serialize("orders", "hello")); // "hello"
 */
export interface Serde<T> {
  /** Shown in error messages, e.g. "int32". */
  readonly name: string;
  serialize(topic: string, value: T | null): Buffer | null;
  deserialize(topic: string, data: Buffer | null): T | null;
  /**
   * True only for a serde whose `serialize` turns every string into exactly its UTF-8 bytes
   * (`Buffer.from(s, "utf8")`), as `Serdes.string()` does. A store keyed by such a serde finds
   * cached keys by the string itself, without serializing it per read. A serde copied from
   * `Serdes.string()` with another `serialize` must leave this out.
   */
  readonly utf8String?: boolean;
}

/**
 * Bytes that a serde cannot read, or a value it cannot write. The message names the serde,
 * the topic and what was wrong; the exception handlers decide whether it stops the app.
 */
export class SerdeError extends Error {
  readonly serde: string;
  readonly topic: string;
  constructor(serde: string, topic: string, problem: string, options?: { cause?: unknown }) {
    super(`Serde "${serde}" failed on topic "${topic}": ${problem}`, options);
    this.name = "SerdeError";
    this.serde = serde;
    this.topic = topic;
  }
}

/** The two halves a user-defined serde supplies; null handling and error wrapping are added for it. */
export interface SerdeFunctions<T> {
  serialize(value: T, topic: string): Buffer;
  deserialize(data: Buffer, topic: string): T;
}

/**
 * Builds a serde from plain functions. Nulls never reach them (tombstones pass through),
 * and anything they throw becomes a SerdeError naming this serde.
 *
 * @example
 *   const point = serdeFrom<Point>("point", {
 *     serialize: (p) => Buffer.from(`${p.x},${p.y}`),
 *     deserialize: (b) => { const [x, y] = b.toString().split(",").map(Number); return { x: x!, y: y! }; },
 *   });
 */
export function serdeFrom<T>(name: string, fns: SerdeFunctions<T>): Serde<T> {
  return {
    name,
    serialize(topic, value) {
      if (value === null) return null;
      try {
        return fns.serialize(value, topic);
      } catch (error) {
        if (error instanceof SerdeError) throw error;
        throw new SerdeError(name, topic, `cannot serialize value: ${messageOf(error)}`, { cause: error });
      }
    },
    deserialize(topic, data) {
      if (data === null) return null;
      try {
        return fns.deserialize(data, topic);
      } catch (error) {
        if (error instanceof SerdeError) throw error;
        throw new SerdeError(name, topic, `cannot deserialize ${data.length} bytes: ${messageOf(error)}`, { cause: error });
      }
    },
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Kafka's zig-zag varints (record fields) on plain numbers, written into and read from a
 * Buffer in place. kafkajs computes them through a BigInt-backed Long and a temporary
 * Buffer per field, which was a large part of the per-record cost. Varlongs here are exact
 * within Number.MAX_SAFE_INTEGER and fall back to BigInt beyond it, so every value kafkajs
 * accepts still encodes to the same bytes.
 */

/** Bytes of a zig-zag varint (32-bit signed). */
export function sizeOfVarInt(value: number): number {
  let z = ((value << 1) ^ (value >> 31)) >>> 0;
  let bytes = 1;
  while (z >= 0x80) {
    bytes++;
    z >>>= 7;
  }
  return bytes;
}

/** Writes a zig-zag varint at `offset`; returns the offset after it. */
export function writeVarInt(buffer: Buffer, offset: number, value: number): number {
  let z = ((value << 1) ^ (value >> 31)) >>> 0;
  while (z >= 0x80) {
    buffer[offset++] = (z & 0x7f) | 0x80;
    z >>>= 7;
  }
  buffer[offset++] = z;
  return offset;
}

/** The zig-zag form of a 64-bit signed value: a non-negative number when it is safe, else a bigint. */
function zigZag64(value: number | bigint): number | bigint {
  if (typeof value === "number" && Number.isSafeInteger(value) && Math.abs(value) <= 2 ** 51) return value >= 0 ? value * 2 : -value * 2 - 1;
  const v = BigInt.asIntN(64, BigInt(value));
  return BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
}

/** Bytes of a zig-zag varlong. */
export function sizeOfVarLong(value: number | bigint): number {
  let z = zigZag64(value);
  let bytes = 1;
  if (typeof z === "bigint") {
    while (z >= 0x80n) {
      bytes++;
      z >>= 7n;
    }
    return bytes;
  }
  while (z >= 0x80) {
    bytes++;
    z = Math.floor(z / 128);
  }
  return bytes;
}

/** Writes a zig-zag varlong at `offset`; returns the offset after it. */
export function writeVarLong(buffer: Buffer, offset: number, value: number | bigint): number {
  let z = zigZag64(value);
  if (typeof z === "bigint") {
    while (z >= 0x80n) {
      buffer[offset++] = Number(z & 0x7fn) | 0x80;
      z >>= 7n;
    }
    buffer[offset++] = Number(z);
    return offset;
  }
  while (z >= 0x80) {
    // `& 0x7f` sees the low 32 bits, which hold the low 7 exactly.
    buffer[offset++] = (z & 0x7f) | 0x80;
    z = Math.floor(z / 128);
  }
  buffer[offset++] = z;
  return offset;
}

/** A reading position in a buffer, advanced by the read functions. */
export interface Cursor {
  buffer: Buffer;
  offset: number;
}

/** Reads a zig-zag varint (32-bit signed). */
export function readVarInt(cursor: Cursor): number {
  const { buffer } = cursor;
  let offset = cursor.offset;
  let z = 0;
  let shift = 0;
  let byte: number;
  do {
    if (shift > 28) throw new Error(`Invalid varint at offset ${cursor.offset}: more than 5 bytes`);
    byte = buffer[offset++]!;
    z |= (byte & 0x7f) << shift;
    shift += 7;
  } while (byte >= 0x80);
  cursor.offset = offset;
  return (z >>> 1) ^ -(z & 1);
}

/** Reads a zig-zag varlong: a number, or a bigint for a value a number cannot hold exactly. */
export function readVarLong(cursor: Cursor): number | bigint {
  const { buffer } = cursor;
  let offset = cursor.offset;
  let z = 0;
  let scale = 1;
  let byte: number;
  do {
    // Seven bytes hold 49 bits, exact in a number; longer ones are read as a bigint.
    if (scale > 2 ** 42) return readVarLongBig(cursor);
    byte = buffer[offset++]!;
    z += (byte & 0x7f) * scale;
    scale *= 128;
  } while (byte >= 0x80);
  cursor.offset = offset;
  return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
}

function readVarLongBig(cursor: Cursor): number | bigint {
  let z = 0n;
  let shift = 0n;
  let byte: number;
  do {
    if (shift > 63n) throw new Error(`Invalid varlong at offset ${cursor.offset}: more than 10 bytes`);
    byte = cursor.buffer[cursor.offset++]!;
    z |= BigInt(byte & 0x7f) << shift;
    shift += 7n;
  } while (byte >= 0x80);
  const value = BigInt.asIntN(64, (z >> 1n) ^ -(z & 1n));
  return value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER) ? value : Number(value);
}

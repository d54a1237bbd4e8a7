/**
 * Changelog keys of window and session stores: the store key followed by big-endian
 * times, as Kafka Streams lays them out, so that a restore can rebuild every window.
 *   window:  [key][window start: int64][sequence number: int32]
 *   session: [key][session end: int64][session start: int64]
 * Both share the shape [key][time: int64][extra], where `time` is what retention is
 * measured on (window start, session end) and `extra` tells rows of one key and time
 * apart (the duplicate sequence number, the session start).
 */
export interface TimeKeyedKeyLayout {
  /** Bytes of `extra`: 4 for windows, 8 for sessions. */
  readonly extraBytes: 4 | 8;
}

export const WINDOW_KEY_LAYOUT: TimeKeyedKeyLayout = { extraBytes: 4 };
export const SESSION_KEY_LAYOUT: TimeKeyedKeyLayout = { extraBytes: 8 };

const TWO_POW_32 = 4294967296;

export interface TimeKeyedKey {
  key: Buffer;
  time: number;
  extra: number;
}

export function encodeTimeKeyedKey(layout: TimeKeyedKeyLayout, key: Buffer, time: number, extra: number): Buffer {
  const out = Buffer.allocUnsafe(key.length + 8 + layout.extraBytes);
  key.copy(out, 0);
  writeInt64(out, key.length, time);
  if (layout.extraBytes === 4) out.writeInt32BE(extra, key.length + 8);
  else writeInt64(out, key.length + 8, extra);
  return out;
}

export function decodeTimeKeyedKey(layout: TimeKeyedKeyLayout, bytes: Buffer): TimeKeyedKey {
  const keyLength = bytes.length - 8 - layout.extraBytes;
  if (keyLength < 0) throw new RangeError(`A ${bytes.length}-byte changelog key is too short for a windowed store key`);
  return {
    key: bytes.subarray(0, keyLength),
    time: readInt64(bytes, keyLength),
    extra: layout.extraBytes === 4 ? bytes.readInt32BE(keyLength + 8) : readInt64(bytes, keyLength + 8),
  };
}

// Two 32-bit halves instead of BigInt: no allocation, exact for every safe integer.
function writeInt64(out: Buffer, offset: number, value: number): void {
  out.writeInt32BE(Math.floor(value / TWO_POW_32), offset);
  out.writeUInt32BE(value >>> 0, offset + 4);
}

function readInt64(bytes: Buffer, offset: number): number {
  return bytes.readInt32BE(offset) * TWO_POW_32 + bytes.readUInt32BE(offset + 4);
}

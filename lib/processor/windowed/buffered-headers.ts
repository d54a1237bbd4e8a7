import type { Headers } from "../record.ts";

/**
 * Headers of a buffered result as bytes: `[count: uint16]` then per header `[name length:
 * uint16][name UTF-8][kind: 0 string, 1 bytes][value length: uint32][value]`. A result
 * without headers costs two bytes.
 */
export function encodeHeaders(headers: Headers | undefined): Buffer {
  const entries = headers === undefined ? [] : Object.entries(headers);
  const parts: Buffer[] = [uint16(entries.length)];
  for (const [name, value] of entries) {
    const nameBytes = Buffer.from(name, "utf8");
    const valueBytes = typeof value === "string" ? Buffer.from(value, "utf8") : value;
    const length = Buffer.allocUnsafe(4);
    length.writeUInt32BE(valueBytes.length);
    parts.push(uint16(nameBytes.length), nameBytes, Buffer.from([typeof value === "string" ? 0 : 1]), length, valueBytes);
  }
  return Buffer.concat(parts);
}

/** Reads the headers written by `encodeHeaders` at `offset`; the rest of `data` is the value. */
export function decodeHeaders(data: Buffer, offset: number): { headers: Headers; valueBytes: Buffer } {
  let at = offset;
  const count = data.readUInt16BE(at);
  at += 2;
  const headers: Record<string, string | Buffer> = {};
  for (let i = 0; i < count; i++) {
    const nameLength = data.readUInt16BE(at);
    const name = data.toString("utf8", at + 2, at + 2 + nameLength);
    at += 2 + nameLength;
    const kind = data[at];
    const valueLength = data.readUInt32BE(at + 1);
    const value = data.subarray(at + 5, at + 5 + valueLength);
    at += 5 + valueLength;
    headers[name] = kind === 0 ? value.toString("utf8") : Buffer.from(value);
  }
  return { headers, valueBytes: data.subarray(at) };
}

function uint16(value: number): Buffer {
  const b = Buffer.allocUnsafe(2);
  b.writeUInt16BE(value);
  return b;
}

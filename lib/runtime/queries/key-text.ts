import type { Serde } from "../../serdes/index.ts";

/**
 * How keys are written in a query URL and how keys and values are written in the JSON
 * answers (docs/api.md, "Interactive queries").
 *
 * In a URL, `key=<text>` is read by the store's key serde: the text itself for a string
 * serde, a decimal number for int32/double, a decimal integer for int64, base64 for bytes,
 * and JSON for every other serde (json and custom ones). `keyBase64=<base64>` gives the
 * serialized key bytes instead, for any serde.
 *
 * In an answer, values and keys are JSON as they are, except what JSON cannot carry:
 * a bigint becomes its decimal string, a Buffer (or Uint8Array) its base64 string.
 */
export class KeyTextError extends Error {
  override readonly name = "KeyTextError";
}

export function parseKeyText<K>(text: string, serde: Serde<K>): K {
  switch (serde.name) {
    case "string":
      return text as K;
    case "int32":
    case "double": {
      const n = text.trim() === "" ? Number.NaN : Number(text);
      if (!Number.isFinite(n)) throw new KeyTextError(`key ${JSON.stringify(text)} is not a number, and the store's key serde is ${serde.name}`);
      return n as K;
    }
    case "int64":
      if (!/^-?\d+$/.test(text)) throw new KeyTextError(`key ${JSON.stringify(text)} is not a decimal integer, and the store's key serde is int64`);
      return BigInt(text) as K;
    case "bytes":
      return decodeBase64(text, "key") as K;
    default:
      try {
        return JSON.parse(text) as K;
      } catch {
        throw new KeyTextError(`key ${JSON.stringify(text)} is not JSON, and the store's key serde ("${serde.name}") reads keys as JSON; quote a string key, or give keyBase64`);
      }
  }
}

/** The key from its serialized bytes, in base64. */
export function keyFromBase64<K>(text: string, serde: Serde<K>, topic: string): K {
  const key = serde.deserialize(topic, decodeBase64(text, "keyBase64"));
  if (key === null) throw new KeyTextError("keyBase64 decodes to a null key");
  return key;
}

function decodeBase64(text: string, what: string): Buffer {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text)) throw new KeyTextError(`${what} ${JSON.stringify(text)} is not base64`);
  return Buffer.from(text, text.includes("-") || text.includes("_") ? "base64url" : "base64");
}

/** A key or value as JSON can carry it. */
export function renderJson(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64");
  if (value === undefined) return null;
  if (value === null || typeof value !== "object") return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return renderJson((value as { toJSON(): unknown }).toJSON());
  if (Array.isArray(value)) return value.map(renderJson);
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [k, renderJson(v)]));
}

import { describe, expect, it } from "vitest";
import { Serdes, serdeFrom } from "../../../lib/index.ts";
import { keyFromBase64, parseKeyText, renderJson } from "../../../lib/runtime/queries/key-text.ts";

describe("keys in query URLs", () => {
  it("reads the key's text by the store's key serde", () => {
    expect(parseKeyText("alice", Serdes.string())).toBe("alice");
    expect(parseKeyText("42", Serdes.int32())).toBe(42);
    expect(parseKeyText("-1.5", Serdes.double())).toBe(-1.5);
    expect(parseKeyText("9007199254740993", Serdes.int64())).toBe(9007199254740993n);
    expect(parseKeyText("AAE=", Serdes.bytes())).toEqual(Buffer.from([0, 1]));
    expect(parseKeyText('{"id":1}', Serdes.json())).toEqual({ id: 1 });
    const custom = serdeFrom<string>("upper", { serialize: (v) => Buffer.from(v), deserialize: (b) => b.toString() });
    expect(parseKeyText('"x"', custom)).toBe("x");
  });

  it("says why a key's text does not fit the serde", () => {
    expect(() => parseKeyText("abc", Serdes.int32())).toThrow(/not a number, and the store's key serde is int32/);
    expect(() => parseKeyText("", Serdes.double())).toThrow(/not a number/);
    expect(() => parseKeyText("1.5", Serdes.int64())).toThrow(/not a decimal integer/);
    expect(() => parseKeyText("alice", Serdes.json())).toThrow(/not JSON.*quote a string key, or give keyBase64/);
  });

  it("reads keyBase64 as the serialized key", () => {
    const bytes = Serdes.int64().serialize("t", 7n)!;
    expect(keyFromBase64(bytes.toString("base64"), Serdes.int64(), "t")).toBe(7n);
    expect(keyFromBase64(bytes.toString("base64url"), Serdes.int64(), "t")).toBe(7n);
  });
});

describe("values in query answers", () => {
  it("keeps JSON values and writes bigints as decimal text and bytes as base64", () => {
    expect(renderJson({ a: 1, b: [true, null, "s"], c: 12345678901234567890n, d: Buffer.from("hi"), e: undefined })).toEqual({
      a: 1,
      b: [true, null, "s"],
      c: "12345678901234567890",
      d: Buffer.from("hi").toString("base64"),
    });
    expect(renderJson(new Date(0))).toBe("1970-01-01T00:00:00.000Z");
  });
});

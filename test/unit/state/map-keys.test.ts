import { describe, expect, it } from "vitest";
import { bytesToMapKey, rowMapKeySuffix, utf8BytesToMapKey } from "../../../lib/state/bytes.ts";
import { seededRandom } from "../../../lib/testing/seeded-random.ts";

/** Short byte strings from a small alphabet that makes valid and invalid UTF-8 alike. */
function byteStrings(seed: number, count: number): Buffer[] {
  const next = seededRandom(seed);
  const alphabet = [0x00, 0x41, 0x7f, 0x80, 0xbf, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xed, 0xa0, 0xef, 0xbb, 0xf0, 0x9f, 0xff];
  return Array.from({ length: count }, () =>
    Buffer.from(Array.from({ length: Math.floor(next() * 6) }, () => alphabet[Math.floor(next() * alphabet.length)]!)),
  );
}

describe("map keys of byte strings", () => {
  it.each([
    ["latin1", bytesToMapKey],
    ["utf8", utf8BytesToMapKey],
  ] as const)("%s: distinct byte strings get distinct keys", (_name, toMapKey) => {
    const keys = new Map<string, string>();
    for (const bytes of byteStrings(11, 20_000)) {
      const key = toMapKey(bytes);
      const hex = bytes.toString("hex");
      expect(keys.get(key) ?? hex).toBe(hex);
      keys.set(key, hex);
    }
  });

  it("utf8: a well-formed string is its own bytes' key, a byte order mark included", () => {
    for (const text of ["", "a", "é", "€", "\u{1F600}", "\uFEFFbom", "Ã©", "\uFFFD"]) {
      expect(utf8BytesToMapKey(Buffer.from(text, "utf8"))).toBe(text);
    }
  });

  it("utf8: bytes that are not UTF-8 never get a key a well-formed string could be", () => {
    for (const bytes of byteStrings(12, 5_000)) {
      const key = utf8BytesToMapKey(bytes);
      const valid = Buffer.from(bytes.toString("utf8"), "utf8").equals(bytes);
      expect(key.isWellFormed()).toBe(valid);
    }
  });
});

describe("rowMapKeySuffix", () => {
  it("gives every (time, extra) its own fixed-width suffix, negative and beyond 2^32 included", () => {
    const edges = [Number.MIN_SAFE_INTEGER, -(2 ** 32) - 1, -(2 ** 32), -1, 0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 7, Number.MAX_SAFE_INTEGER];
    const seen = new Map<string, string>();
    for (const time of edges) {
      for (const extra of edges) {
        const suffix = rowMapKeySuffix(time, extra);
        expect(suffix).toHaveLength(8);
        const earlier = seen.get(suffix);
        expect(earlier, `${time}/${extra} and ${earlier} share a suffix`).toBeUndefined();
        seen.set(suffix, `${time}/${extra}`);
      }
    }
  });
});

/**
 * A Bloom filter of the keys a key-value table holds, so that a lookup of a key the table
 * has never had (every first sight of a key in an aggregation over a large key space)
 * answers "absent" without a SQLite query. It only ever errs towards "maybe": keys are
 * added on every write and never removed (a delete, or a rolled-back transaction, leaves a
 * false "maybe", which the query then answers). About 10 bits per key and 7 probes: about
 * 1% of absent keys still reach SQLite.
 *
 * The filter is built from a scan of the table's keys on first use, and rebuilt from one
 * (twice as large) when the keys added since outgrow it, so it costs O(1) per write
 * amortised and O(keys) once per open.
 */

const BITS_PER_KEY = 10;
const PROBES = 7;
const MIN_CAPACITY = 4096;

export class KeyFilter {
  private bits: Int32Array;
  private mask: number;
  private capacity: number;
  private added = 0;
  private readonly countKeys: () => number;
  private readonly scanKeys: () => Iterable<Buffer>;

  /** `countKeys` and `scanKeys` read the table as it is now (for building and rebuilding). */
  constructor(countKeys: () => number, scanKeys: () => Iterable<Buffer>) {
    this.countKeys = countKeys;
    this.scanKeys = scanKeys;
    this.capacity = 0;
    this.bits = new Int32Array(0);
    this.mask = 0;
  }

  /** False only when the table certainly does not hold `key`. */
  mightContain(key: Buffer): boolean {
    if (this.capacity === 0) this.rebuild();
    const h1 = hash(key);
    const h2 = mix(h1) | 1;
    const bits = this.bits;
    const mask = this.mask;
    for (let i = 0, h = h1; i < PROBES; i++, h = (h + h2) | 0) {
      const bit = h & mask;
      if ((bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }

  /** Call for every key written with a value, after the write (a rebuild scans the table). */
  add(key: Buffer): void {
    if (this.capacity === 0) return; // not built yet: the first lookup's scan will see the key
    // A key already "maybe" (rewritten, mostly) adds nothing: only new keys fill the filter.
    if (this.mightContain(key)) return;
    if (++this.added > this.capacity) this.rebuild();
    else this.set(key);
  }

  /** Forgets everything (the table was emptied). */
  reset(): void {
    this.capacity = 0;
    this.bits = new Int32Array(0);
  }

  private set(key: Buffer): void {
    const h1 = hash(key);
    const h2 = mix(h1) | 1;
    for (let i = 0, h = h1; i < PROBES; i++, h = (h + h2) | 0) {
      const bit = h & this.mask;
      this.bits[bit >>> 5]! |= 1 << (bit & 31);
    }
  }

  /** Sized for twice the keys there are now, so it is rebuilt after the key count has doubled. */
  private rebuild(): void {
    const keys = this.countKeys();
    // A power of two of bits, so a probe is a mask.
    const size = 2 ** Math.ceil(Math.log2(Math.max(MIN_CAPACITY, keys * 2) * BITS_PER_KEY));
    this.bits = new Int32Array(size / 32);
    this.mask = size - 1;
    this.capacity = Math.floor(size / BITS_PER_KEY);
    this.added = keys;
    for (const key of this.scanKeys()) this.set(key);
  }
}

/** FNV-1a over the bytes, then a finalizer so the low bits (the ones probes use) are mixed. */
function hash(key: Buffer): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key[i]!, 0x01000193);
  return mix(h);
}

/** murmur3's 32-bit finalizer. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * A Bloom filter of the keys a key-value table holds, so that a lookup of a key the table
 * has never had (every first sight of a key in an aggregation over a large key space)
 * answers "absent" without a SQLite query. It only ever errs towards "maybe": keys are
 * added on every write and never removed (a delete, or a rolled-back transaction, leaves a
 * false "maybe", which the query then answers). About 10 bits per key and 7 probes: about
 * 1% of absent keys reach SQLite per layer.
 *
 * Built from a scan of the table's keys on first use (once per open); when the keys added
 * outgrow it, a layer four times larger is started and the full ones are kept (a scalable
 * Bloom filter), so growth costs no further scan: with a few layers a few percent of
 * absent keys still reach SQLite.
 */

const BITS_PER_KEY = 10;
const PROBES = 7;
const MIN_CAPACITY = 16_384;
const GROWTH = 4;

interface Layer {
  bits: Int32Array;
  /** Bits - 1 (a power of two of bits, so a probe is a mask). */
  mask: number;
  capacity: number;
  added: number;
}

export class KeyFilter {
  /** Oldest first; new keys go into the last one. Empty until first use. */
  private layers: Layer[] = [];
  private readonly countKeys: () => number;
  private readonly scanKeys: () => Iterable<Buffer>;

  private readonly minCapacity: number;

  /**
   * `countKeys` and `scanKeys` read the table as it is now (for the first build);
   * `minCapacity`: keys the first layer holds at least (a small one for a filter that
   * often starts empty).
   */
  constructor(countKeys: () => number, scanKeys: () => Iterable<Buffer>, minCapacity = MIN_CAPACITY) {
    this.countKeys = countKeys;
    this.scanKeys = scanKeys;
    this.minCapacity = minCapacity;
  }

  /** False only when the table certainly does not hold `key`. */
  mightContain(key: Buffer): boolean {
    if (this.layers.length === 0) this.build();
    const h1 = hash(key);
    const h2 = mix(h1) | 1;
    for (let l = this.layers.length - 1; l >= 0; l--) if (probe(this.layers[l]!, h1, h2)) return true;
    return false;
  }

  /** Call for every key written with a value, after the write. */
  add(key: Buffer): void {
    if (this.layers.length === 0) return; // not built yet: the first lookup's scan will see the key
    // A key already "maybe" (rewritten, mostly) adds nothing: only new keys fill the filter.
    if (this.mightContain(key)) return;
    let layer = this.layers[this.layers.length - 1]!;
    if (layer.added >= layer.capacity) {
      layer = newLayer(layer.capacity * GROWTH);
      this.layers.push(layer);
    }
    layer.added++;
    const h1 = hash(key);
    set(layer, h1, mix(h1) | 1);
  }

  /** Forgets everything (the table was emptied). */
  reset(): void {
    this.layers = [];
  }

  private build(): void {
    const layer = newLayer(Math.max(this.minCapacity, this.countKeys() * 2));
    for (const key of this.scanKeys()) {
      const h1 = hash(key);
      set(layer, h1, mix(h1) | 1);
      layer.added++;
    }
    this.layers = [layer];
  }
}

function newLayer(keys: number): Layer {
  const size = 2 ** Math.ceil(Math.log2(keys * BITS_PER_KEY));
  return { bits: new Int32Array(size / 32), mask: size - 1, capacity: Math.floor(size / BITS_PER_KEY), added: 0 };
}

function probe(layer: Layer, h1: number, h2: number): boolean {
  const { bits, mask } = layer;
  for (let i = 0, h = h1; i < PROBES; i++, h = (h + h2) | 0) {
    const bit = h & mask;
    if ((bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
  }
  return true;
}

function set(layer: Layer, h1: number, h2: number): void {
  for (let i = 0, h = h1; i < PROBES; i++, h = (h + h2) | 0) {
    const bit = h & layer.mask;
    layer.bits[bit >>> 5]! |= 1 << (bit & 31);
  }
}

/** FNV-1a over the bytes, then a finalizer so the low bits (the ones probes and buckets use) are mixed. */
export function hash(key: Buffer): number {
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

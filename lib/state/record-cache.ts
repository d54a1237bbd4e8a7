/**
 * The write-back record cache of one store, bounded in bytes (invariant 8).
 *
 * Entries are kept in the order of their last write, which is both the eviction order
 * and the order dirty entries are flushed in, so that downstream sees updates in the order they were last made. Entries loaded by reads are
 * clean; writes make them dirty until the next flush. When the budget is exceeded the
 * oldest entries leave first; when one leaving is dirty, it and every other dirty entry
 * (marked clean, still cached) are handed to `onEvictDirty`, the evicted one first, as
 * Kafka Streams' named cache flushes on such an eviction. Nothing written is lost, only
 * emitted before the commit.
 */

export interface CacheEntry {
  /** The store's byte key (for window and session stores, their composite key). */
  key: Buffer;
  value: Buffer | null;
  timestampMs: number;
  dirty: boolean;
  /** The record context of the write (see RecordContextHolder); null for entries loaded by reads. */
  context: unknown;
  /**
   * What the store below holds for the key, undefined when not known (a key written without
   * being read first). A flush needs that old value for the listener (tables always send old
   * values) and to drop a write-then-delete; reading it back from SQLite per flushed key was
   * a twentieth of a count's CPU. Held only while the entry is dirty (the store clears it
   * once the entry goes down) and not counted in the budget: at most one earlier value per key.
   */
  stored: Buffer | null | undefined;
}

/** A rough per-entry overhead (Map slot, entry object, two Buffer headers), in bytes. */
const ENTRY_OVERHEAD_BYTES = 96;

export function entrySizeBytes(entry: CacheEntry): number {
  return entry.key.length + (entry.value?.length ?? 0) + ENTRY_OVERHEAD_BYTES;
}

/** A slot of the cache's write-order list; a rewrite of the key reuses it. */
interface Slot<E> {
  readonly mapKey: string;
  /** The slot's group (see RecordCache's groupOf), or "" without grouping. */
  readonly group: string;
  entry: E;
  older: Slot<E> | null;
  newer: Slot<E> | null;
}

/**
 * The entries are a Map from key to slot plus a doubly linked list of the slots in write
 * order: a rewrite of a cached key (the common case of an aggregation) moves its slot to
 * the newest end without touching the Map, and eviction takes the oldest slot directly.
 * (A Map re-inserted on every write leaves a deleted slot behind per write, and finding
 * the oldest entry then walks over them: that was a tenth of a count's CPU.)
 *
 * With `groupOf` (the store key of a window or session entry), the dirty entries are also
 * kept per group, so that a scan of one key finds its unflushed writes without a pass over
 * every dirty entry: session windows and stream-stream joins scan once per record.
 */
export class RecordCache<E extends CacheEntry> {
  readonly maxBytes: number;
  private readonly slots = new Map<string, Slot<E>>();
  private oldest: Slot<E> | null = null;
  private newest: Slot<E> | null = null;
  private readonly onEvictDirty: (entries: E[]) => void;
  private bytes = 0;
  private dirty = 0;
  private readonly groupOf: ((entry: E) => string) | null;
  private readonly dirtyByGroup = new Map<string, Set<Slot<E>>>();

  constructor(maxBytes: number, onEvictDirty: (entries: E[]) => void, groupOf: ((entry: E) => string) | null = null) {
    this.maxBytes = maxBytes;
    this.onEvictDirty = onEvictDirty;
    this.groupOf = groupOf;
  }

  get(mapKey: string): E | undefined {
    return this.slots.get(mapKey)?.entry;
  }

  /**
   * Adds the entry of a key the cache does not hold (the stores look it up first) as the
   * newest one, then evicts down to the budget. A cached key is written with `rewrite`.
   */
  add(mapKey: string, entry: E): void {
    const slot: Slot<E> = { mapKey, group: this.groupOf?.(entry) ?? "", entry, older: null, newer: null };
    this.slots.set(mapKey, slot);
    this.append(slot);
    this.placed(slot, false);
  }

  /**
   * A write of a cached key, made in its entry in place, which becomes the newest and dirty;
   * false when the key is not cached, for the store to `add` a new entry. A
   * window store rewrites an entry per record, and a new object per rewrite lived until the
   * key's next write, through young-generation collections. Only for caches whose entries no
   * caller keeps: reads of the stores copy what they return.
   */
  rewrite(mapKey: string, value: Buffer | null, timestampMs: number, context: unknown): boolean {
    const slot = this.slots.get(mapKey);
    if (slot === undefined) return false;
    const entry = slot.entry;
    const wasDirty = entry.dirty;
    this.forget(entry);
    // A clean entry holds what the store below holds; a dirty one already knew it.
    if (!wasDirty) entry.stored = entry.value;
    entry.value = value;
    entry.timestampMs = timestampMs;
    entry.dirty = true;
    entry.context = context;
    this.placed(slot, wasDirty);
    return true;
  }

  /** Dirty entries, oldest write first, marked clean as they are taken. */
  takeDirty(): E[] {
    if (this.dirty === 0) return [];
    const taken: E[] = [];
    for (let slot = this.oldest; slot !== null; slot = slot.newer) {
      const entry = slot.entry;
      if (!entry.dirty) continue;
      entry.dirty = false;
      taken.push(entry);
    }
    this.dirty = 0;
    this.dirtyByGroup.clear();
    return taken;
  }

  /** The dirty entries of one group (see groupOf) matching `accept`, without changing them. */
  dirtyEntriesOf(group: string, accept: (entry: E) => boolean): E[] {
    const slots = this.dirtyByGroup.get(group);
    if (slots === undefined) return [];
    const found: E[] = [];
    for (const slot of slots) if (accept(slot.entry)) found.push(slot.entry);
    return found;
  }

  /** Dirty entries matching `accept`, without changing them (for merging into scans). */
  dirtyEntries(accept: (entry: E) => boolean): E[] {
    if (this.dirty === 0) return [];
    const found: E[] = [];
    for (let slot = this.oldest; slot !== null; slot = slot.newer) {
      if (slot.entry.dirty && accept(slot.entry)) found.push(slot.entry);
    }
    return found;
  }

  clear(): void {
    this.slots.clear();
    this.dirtyByGroup.clear();
    this.oldest = null;
    this.newest = null;
    this.bytes = 0;
    this.dirty = 0;
  }

  get sizeBytes(): number {
    return this.bytes;
  }

  get dirtyCount(): number {
    return this.dirty;
  }

  get size(): number {
    return this.slots.size;
  }

  /** The bookkeeping of a slot whose entry was just added or rewritten: newest in write order, bytes, dirty group, eviction. */
  private placed(slot: Slot<E>, wasDirty: boolean): void {
    const entry = slot.entry;
    if (slot !== this.newest) {
      this.unlink(slot);
      this.append(slot);
    }
    this.bytes += entrySizeBytes(entry);
    if (entry.dirty) {
      this.dirty++;
      // A rewrite of a dirty entry (an aggregation's common case) stays in its group as it is.
      if (this.groupOf !== null && !wasDirty) {
        let group = this.dirtyByGroup.get(slot.group);
        if (group === undefined) this.dirtyByGroup.set(slot.group, (group = new Set()));
        group.add(slot);
      }
    }
    this.evictToBudget();
  }

  private evictToBudget(): void {
    while (this.bytes > this.maxBytes && this.oldest !== null) {
      const slot = this.oldest;
      const entry = slot.entry;
      this.unlink(slot);
      this.slots.delete(slot.mapKey);
      this.forget(entry);
      // Removed before the callback, so a listener that writes back into this store
      // sees a consistent cache.
      if (entry.dirty) {
        this.leaveGroup(slot);
        entry.dirty = false;
        this.onEvictDirty([entry, ...this.takeDirty()]);
      }
    }
  }

  private append(slot: Slot<E>): void {
    slot.older = this.newest;
    slot.newer = null;
    if (this.newest !== null) this.newest.newer = slot;
    else this.oldest = slot;
    this.newest = slot;
  }

  private unlink(slot: Slot<E>): void {
    if (slot.older !== null) slot.older.newer = slot.newer;
    else this.oldest = slot.newer;
    if (slot.newer !== null) slot.newer.older = slot.older;
    else this.newest = slot.older;
    slot.older = null;
    slot.newer = null;
  }

  private forget(entry: E): void {
    this.bytes -= entrySizeBytes(entry);
    if (entry.dirty) this.dirty--;
  }

  private leaveGroup(slot: Slot<E>): void {
    const group = this.dirtyByGroup.get(slot.group);
    if (group === undefined) return;
    group.delete(slot);
    if (group.size === 0) this.dirtyByGroup.delete(slot.group);
  }
}

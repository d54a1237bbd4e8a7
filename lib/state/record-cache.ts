import type { RecordContextHolder } from "./store.ts";

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
  /** The record context of the write (see RecordContextHolder), the entry's own; null for entries loaded by reads. */
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

/** How a cache groups its entries (window and session stores: by store key). */
export interface Grouping<E> {
  of(entry: E): string;
  /**
   * Whether an entry leaving the cache takes with it a row that a scan could still return
   * from the store below (a value within retention); if so its group is no longer complete.
   */
  holdsLiveRow(entry: E): boolean;
}

/**
 * The slots of one group (see Grouping), and whether they hold every row the
 * store below has for the group (markComplete), so that a scan of it needs no read below.
 */
interface Group<E> {
  readonly slots: Set<Slot<E>>;
  complete: boolean;
}

/** A slot of the cache's write-order list; a rewrite of the key reuses it. */
interface Slot<E> {
  readonly mapKey: string;
  /** The slot's group (see Grouping), or "" while the cache keeps no groups. */
  group: string;
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
 * With a grouping (the store key of a window or session entry), the entries are also kept
 * per group from the first call that asks for one (a window store that is never scanned by
 * key does not pay for them), so that a scan of one key finds its unflushed writes without
 * a pass over every dirty entry (session windows scan once per record), and, once the store
 * has loaded all of a group's rows (markComplete), is answered from the cache alone until
 * one of them leaves.
 */
export class RecordCache<E extends CacheEntry> {
  readonly maxBytes: number;
  private readonly slots = new Map<string, Slot<E>>();
  private oldest: Slot<E> | null = null;
  private newest: Slot<E> | null = null;
  private readonly onEvictDirty: (entries: E[]) => void;
  private bytes = 0;
  private dirty = 0;
  private readonly grouping: Grouping<E> | null;
  /** Null until a group is first asked for. */
  private groups: Map<string, Group<E>> | null = null;
  // The slot last looked up or added: an update reads a key, then rewrites it, and the
  // rewrite finds the slot without a second Map lookup. Null once that slot leaves.
  private lastSlot: Slot<E> | null = null;

  constructor(maxBytes: number, onEvictDirty: (entries: E[]) => void, grouping: Grouping<E> | null = null) {
    this.maxBytes = maxBytes;
    this.onEvictDirty = onEvictDirty;
    this.grouping = grouping;
  }

  get(mapKey: string): E | undefined {
    const slot = this.slots.get(mapKey);
    this.lastSlot = slot ?? null;
    return slot?.entry;
  }

  /**
   * Adds the entry of a key the cache does not hold (the stores look it up first) as the
   * newest one, then evicts down to the budget. A cached key is written with `rewrite`.
   */
  add(mapKey: string, entry: E): void {
    this.placed(this.insert(mapKey, entry));
    this.evictToBudget();
  }

  /**
   * Adds entries of keys the cache does not hold, as `add` does, evicting only once all are
   * in: they were read from the store below together, and a dirty entry evicted between
   * them would be written below, making the rest stale.
   */
  addAll(entries: readonly (readonly [string, E])[]): void {
    for (const [mapKey, entry] of entries) this.placed(this.insert(mapKey, entry));
    this.evictToBudget();
  }

  /**
   * A write of a cached key, made in its entry in place, which becomes the newest and dirty;
   * false when the key is not cached, for the store to `add` a new entry. A
   * window store rewrites an entry per record, and a new object per rewrite lived until the
   * key's next write, through young-generation collections. Only for caches whose entries no
   * caller keeps: reads of the stores copy what they return.
   */
  rewrite(mapKey: string, value: Buffer | null, timestampMs: number, contexts: RecordContextHolder | null): boolean {
    const last = this.lastSlot;
    const slot = last !== null && last.mapKey === mapKey ? last : this.slots.get(mapKey);
    if (slot === undefined) return false;
    const entry = slot.entry;
    const wasDirty = entry.dirty;
    this.forget(entry);
    // A clean entry holds what the store below holds; a dirty one already knew it.
    if (!wasDirty) entry.stored = entry.value;
    entry.value = value;
    entry.timestampMs = timestampMs;
    entry.dirty = true;
    // The entry's context is its own (no other entry or caller holds it): rewritten in place.
    entry.context = contexts === null ? null : contexts.capture(entry.context);
    this.placed(slot);
    this.evictToBudget();
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
    return taken;
  }

  /** The dirty entries of one group (see Grouping) matching `accept`, without changing them. */
  dirtyEntriesOf(group: string, accept: (entry: E) => boolean): E[] {
    const slots = this.grouped().get(group)?.slots;
    if (slots === undefined) return [];
    const found: E[] = [];
    for (const slot of slots) if (slot.entry.dirty && accept(slot.entry)) found.push(slot.entry);
    return found;
  }

  /**
   * Every entry of a complete group matching `accept`, clean and dirty, without changing
   * them; undefined when the group is not complete (the store must read below as well).
   */
  completeEntriesOf(group: string, accept: (entry: E) => boolean): E[] | undefined {
    const found = this.grouped().get(group);
    if (found === undefined || !found.complete) return undefined;
    const entries: E[] = [];
    for (const slot of found.slots) if (accept(slot.entry)) entries.push(slot.entry);
    return entries;
  }

  /**
   * Removes a clean entry if it is still the key's (a store drops a delete once it went
   * below: a session merged away is never read again, and its entry only took budget and
   * lengthened its group's scans).
   */
  drop(mapKey: string, entry: E): void {
    const slot = this.slots.get(mapKey);
    if (slot === undefined || slot.entry !== entry || entry.dirty) return;
    this.remove(slot);
  }

  /**
   * Removes clean entries from the oldest end while `gone` says no read can reach them again
   * (a window store's rows past its retention), stopping at the first entry that is dirty or
   * not gone. Entries are in last-write order and windows are written in order of time, so
   * those are the oldest; one left behind leaves by the budget as before. The cost is one
   * step per entry removed: a pass over the whole cache per flush would cost more than the
   * entries do.
   */
  dropOldestWhile(gone: (entry: E) => boolean): void {
    for (let slot = this.oldest; slot !== null && !slot.entry.dirty && gone(slot.entry); slot = this.oldest) this.remove(slot);
  }

  hasGroup(group: string): boolean {
    return this.grouped().has(group);
  }

  /**
   * Declares that the group's entries hold every row the store below has for it. Call it
   * before adding the rows just read from below (addAll): if one of the group's rows leaves
   * then or later, the group is no longer complete. Entries without a live row (deleted or
   * expired: see Grouping) may leave without that. Only for a group that has or is about
   * to get entries: an empty one stays until it has one.
   */
  markComplete(group: string): void {
    const groups = this.grouped();
    let found = groups.get(group);
    if (found === undefined) groups.set(group, (found = { slots: new Set(), complete: true }));
    found.complete = true;
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
    this.lastSlot = null;
    this.groups?.clear();
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

  private insert(mapKey: string, entry: E): Slot<E> {
    const slot: Slot<E> = { mapKey, group: "", entry, older: null, newer: null };
    this.slots.set(mapKey, slot);
    this.lastSlot = slot;
    if (this.groups !== null) this.joinGroup(slot, this.groups);
    this.append(slot);
    return slot;
  }

  /** The bookkeeping of a slot whose entry was just added or rewritten: newest in write order, bytes. */
  private placed(slot: Slot<E>): void {
    const entry = slot.entry;
    if (slot !== this.newest) {
      this.unlink(slot);
      this.append(slot);
    }
    this.bytes += entrySizeBytes(entry);
    if (entry.dirty) this.dirty++;
  }

  private evictToBudget(): void {
    while (this.bytes > this.maxBytes && this.oldest !== null) {
      const slot = this.oldest;
      const entry = slot.entry;
      this.remove(slot);
      // Removed before the callback, so a listener that writes back into this store
      // sees a consistent cache.
      if (entry.dirty) {
        entry.dirty = false;
        this.onEvictDirty([entry, ...this.takeDirty()]);
      }
    }
  }

  private remove(slot: Slot<E>): void {
    this.unlink(slot);
    this.slots.delete(slot.mapKey);
    if (slot === this.lastSlot) this.lastSlot = null;
    this.forget(slot.entry);
    this.leaveGroup(slot);
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

  /** The groups, built from every cached entry on first use and kept from then on. */
  private grouped(): Map<string, Group<E>> {
    if (this.groups !== null) return this.groups;
    if (this.grouping === null) throw new Error("this record cache was made without a grouping");
    const groups = (this.groups = new Map());
    for (let slot = this.oldest; slot !== null; slot = slot.newer) this.joinGroup(slot, groups);
    return groups;
  }

  private joinGroup(slot: Slot<E>, groups: Map<string, Group<E>>): void {
    slot.group = this.grouping!.of(slot.entry);
    const group = groups.get(slot.group);
    if (group === undefined) groups.set(slot.group, { slots: new Set([slot]), complete: false });
    else group.slots.add(slot);
  }

  /** For a slot leaving the cache: a live row it held (now only below) leaves its group incomplete. */
  private leaveGroup(slot: Slot<E>): void {
    const group = this.groups?.get(slot.group);
    if (group === undefined) return;
    group.slots.delete(slot);
    if (group.complete && this.grouping!.holdsLiveRow(slot.entry)) group.complete = false;
    // An empty group goes even when complete: kept, the groups of keys gone by would pile up.
    if (group.slots.size === 0) this.groups!.delete(slot.group);
  }
}

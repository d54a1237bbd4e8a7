/**
 * The write-back record cache of one store, bounded in bytes (invariant 8).
 *
 * Entries are kept in the order of their last write (a Map re-inserted on each write),
 * which is both the eviction order and the order dirty entries are flushed in, so that
 * downstream sees updates in the order they were last made. Entries loaded by reads are
 * clean; writes make them dirty until the next flush. When the budget is exceeded the
 * oldest entries leave first, and a dirty one is handed to `onEvictDirty` on its way out,
 * so nothing written is lost, only emitted before the commit.
 */

export interface CacheEntry {
  /** The store's byte key (for window and session stores, their composite key). */
  key: Buffer;
  value: Buffer | null;
  timestampMs: number;
  dirty: boolean;
  /** The record context of the write (see RecordContextHolder); null for entries loaded by reads. */
  context: unknown;
}

/** A rough per-entry overhead (Map slot, entry object, two Buffer headers), in bytes. */
const ENTRY_OVERHEAD_BYTES = 96;

export function entrySizeBytes(entry: CacheEntry): number {
  return entry.key.length + (entry.value?.length ?? 0) + ENTRY_OVERHEAD_BYTES;
}

export class RecordCache<E extends CacheEntry> {
  readonly maxBytes: number;
  private readonly entries = new Map<string, E>();
  private readonly onEvictDirty: (entry: E) => void;
  private bytes = 0;
  private dirty = 0;

  constructor(maxBytes: number, onEvictDirty: (entry: E) => void) {
    this.maxBytes = maxBytes;
    this.onEvictDirty = onEvictDirty;
  }

  get(mapKey: string): E | undefined {
    return this.entries.get(mapKey);
  }

  /** Adds or replaces an entry as the newest one, then evicts down to the budget. */
  put(mapKey: string, entry: E): void {
    const previous = this.entries.get(mapKey);
    if (previous !== undefined) {
      this.entries.delete(mapKey);
      this.forget(previous);
    }
    this.entries.set(mapKey, entry);
    this.bytes += entrySizeBytes(entry);
    if (entry.dirty) this.dirty++;
    this.evictToBudget();
  }

  /** Dirty entries, oldest write first, marked clean as they are taken. */
  takeDirty(): E[] {
    if (this.dirty === 0) return [];
    const taken: E[] = [];
    for (const entry of this.entries.values()) {
      if (!entry.dirty) continue;
      entry.dirty = false;
      taken.push(entry);
    }
    this.dirty = 0;
    return taken;
  }

  /** Dirty entries matching `accept`, without changing them (for merging into scans). */
  dirtyEntries(accept: (entry: E) => boolean): E[] {
    if (this.dirty === 0) return [];
    const found: E[] = [];
    for (const entry of this.entries.values()) {
      if (entry.dirty && accept(entry)) found.push(entry);
    }
    return found;
  }

  clear(): void {
    this.entries.clear();
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
    return this.entries.size;
  }

  private evictToBudget(): void {
    while (this.bytes > this.maxBytes && this.entries.size > 0) {
      const oldest = this.entries.entries().next().value as [string, E];
      const [mapKey, entry] = oldest;
      this.entries.delete(mapKey);
      this.forget(entry);
      // Removed before the callback, so a listener that writes back into this store
      // sees a consistent cache.
      if (entry.dirty) {
        entry.dirty = false;
        this.onEvictDirty(entry);
      }
    }
  }

  private forget(entry: E): void {
    this.bytes -= entrySizeBytes(entry);
    if (entry.dirty) this.dirty--;
  }
}

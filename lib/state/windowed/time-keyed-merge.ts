import type { TimeKeyedRow } from "./time-keyed-bytes-store.ts";

/** What a scan needs of a cached window or session row. */
export interface CachedRow {
  storeKey: Buffer;
  time: number;
  extra: number;
  value: Buffer | null;
  timestampMs: number;
}

/** A complete group's entries as a scan's rows: deleted ones left out, one key's rows by (time, extra). */
export function rowsOf(entries: readonly CachedRow[], reverse: boolean): TimeKeyedRow[] {
  const rows: TimeKeyedRow[] = [];
  for (const e of entries) if (e.value !== null) rows.push({ key: e.storeKey, time: e.time, extra: e.extra, value: e.value, timestampMs: e.timestampMs });
  const direction = reverse ? -1 : 1;
  if (rows.length > 1) rows.sort((a, b) => direction * (a.time - b.time || a.extra - b.extra));
  return rows;
}

function compareRows(a: { time: number; extra: number }, aKey: Buffer, b: { time: number; extra: number }, bKey: Buffer): number {
  return a.time - b.time || Buffer.compare(aKey, bKey) || a.extra - b.extra;
}

/** Overlays dirty entries (a null value hides the stored row) on rows sorted by (time, key, extra). */
export function mergeDirty(stored: TimeKeyedRow[], dirty: CachedRow[], from: number, reverse: boolean): TimeKeyedRow[] {
  const direction = reverse ? -1 : 1;
  dirty.sort((a, b) => direction * compareRows(a, a.storeKey, b, b.storeKey));
  const merged: TimeKeyedRow[] = [];
  let i = 0;
  let j = 0;
  while (i < stored.length || j < dirty.length) {
    const s = stored[i];
    const d = dirty[j];
    const order = s === undefined ? 1 : d === undefined ? -1 : direction * compareRows(s, s.key, d, d.storeKey);
    if (order < 0 && s !== undefined) {
      if (s.time >= from) merged.push(s);
      i++;
      continue;
    }
    if (order === 0) i++;
    if (d !== undefined && d.value !== null) {
      merged.push({ key: d.storeKey, time: d.time, extra: d.extra, value: d.value, timestampMs: d.timestampMs });
    }
    j++;
  }
  return merged;
}

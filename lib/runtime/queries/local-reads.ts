import type { KeyValue, Windowed } from "../../state/index.ts";
import type { LocalStores } from "./local-stores.ts";

/** A query's parameters, keys already read by the store's key serde; null where not given. */
export interface QueryParams {
  store: string;
  key: unknown;
  fromKey: unknown;
  toKey: unknown;
  time: number | null;
  timeFrom: number | null;
  timeTo: number | null;
  earliestEnd: number | null;
  latestStart: number | null;
}

const EARLIEST = Number.MIN_SAFE_INTEGER;
const LATEST = Number.MAX_SAFE_INTEGER;

/** Answers one query from this instance's own tasks (typed values; the caller renders them as JSON). */
export function readLocally(stores: LocalStores, path: string, p: QueryParams): Record<string, unknown> {
  switch (path) {
    case "/stores/key-value/get":
      return { key: p.key, value: stores.keyValue(p.store).get(p.key) };
    case "/stores/key-value/range":
      return { entries: stores.keyValue(p.store).range(p.fromKey, p.toKey) };
    case "/stores/key-value/all":
      return { entries: stores.keyValue(p.store).all() };
    case "/stores/window/fetch": {
      const view = stores.window(p.store);
      if (p.time !== null) return { key: p.key, windowStartMs: p.time, value: view.fetch(p.key, p.time) };
      const size = view.windowSizeMs;
      const windows = view.fetch(p.key, p.timeFrom ?? EARLIEST, p.timeTo ?? LATEST);
      return { key: p.key, windows: windows.map((w) => ({ startMs: w.windowStartMs, endMs: w.windowStartMs + size, value: w.value, timestampMs: w.timestampMs })) };
    }
    case "/stores/window/all": {
      const view = stores.window(p.store);
      return { windows: view.fetchAll(p.timeFrom ?? EARLIEST, p.timeTo ?? LATEST).map(windowed) };
    }
    case "/stores/session/fetch": {
      const view = stores.session(p.store);
      const sessions =
        p.earliestEnd === null && p.latestStart === null ? view.fetch(p.key) : view.findSessions(p.key, p.earliestEnd ?? EARLIEST, p.latestStart ?? LATEST);
      return { key: p.key, sessions: sessions.map((s) => ({ startMs: s.key.window.startMs, endMs: s.key.window.endMs, value: s.value })) };
    }
    default:
      throw new Error(`no local read for ${path}`);
  }
}

function windowed(entry: KeyValue<Windowed<unknown>, unknown>): Record<string, unknown> {
  return { key: entry.key.key, startMs: entry.key.window.startMs, endMs: entry.key.window.endMs, value: entry.value };
}

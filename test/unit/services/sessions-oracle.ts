/**
 * Seeded page views for the sessions service, and the final sessions Kafka Streams'
 * semantics give for them, by brute force: every session of every user kept in a list,
 * merged and closed by the rules written out here.
 */
import type { PageView, Session, SessionsConfig } from "../../../services/sessions/topology.ts";
import { int, pick, rng } from "../joins/oracle-helpers.ts";

const SEC = 1000;
const MIN = 60 * SEC;

export interface Delivery {
  view: PageView;
  /** Why it is in the input: an ordinary view, a straggler that bridges two sessions, or one far too late. */
  kind: "view" | "bridge" | "too-late";
}

/**
 * Views of `users` users over six hours in arrival order. Each view arrives up to
 * `grace - gap` after its event time (so whether a straggler is accepted, and whether a
 * session it merges was already final, is the same whether sessions close at end + grace
 * or at end + gap + grace); some views bridge two sessions of their user; a few arrive an
 * hour late, with no other view of their user near them, and are dropped.
 */
export function pageViews(seed: number, config: SessionsConfig, baseMs: number, users = 8): Delivery[] {
  const random = rng(seed);
  const gap = config.inactivityGapMs;
  const maxDelay = config.graceMs - gap;
  const pages = ["/", "/search", "/product", "/cart", "/checkout", "/help", "/account"];
  const out: { d: Delivery; arrives: number; n: number }[] = [];
  const byUser = new Map<string, number[]>();
  let n = 0;
  const add = (view: PageView, kind: Delivery["kind"], delay: number) => {
    out.push({ d: { view, kind }, arrives: view.at + delay, n: n++ });
    byUser.set(view.userId, [...(byUser.get(view.userId) ?? []), view.at]);
  };
  for (let u = 0; u < users; u++) {
    const userId = `user-${u}`;
    let t = baseMs + int(random, 0, 30) * MIN;
    while (t < baseMs + 6 * 60 * MIN) {
      const views = int(random, 1, 8);
      for (let v = 0; v < views; v++) {
        if (v > 0) t += int(random, 10, gap / SEC - 30) * SEC;
        add({ userId, page: pick(random, pages), at: t }, "view", random() < 0.8 ? int(random, 0, 20) * SEC : int(random, 0, maxDelay));
      }
      if (random() < 0.35) {
        // a gap a single view can bridge; half the time that view comes, late, after the next session began
        const pause = int(random, gap / SEC + 30, (2 * gap) / SEC - 30) * SEC;
        if (random() < 0.5) add({ userId, page: pick(random, pages), at: t + Math.floor(pause / 2) }, "bridge", int(random, gap + 30 * SEC, maxDelay));
        t += pause;
      } else {
        t += int(random, gap / SEC + 30, 40 * 60) * SEC;
      }
    }
  }
  for (let i = 0; i < 12; i++) {
    const userId = `user-${int(random, 0, users - 1)}`;
    const at = baseMs + int(random, 60, 300) * MIN + int(random, 0, 59) * SEC;
    if (byUser.get(userId)!.some((x) => Math.abs(x - at) <= gap)) continue; // near other views it would merge, not be dropped
    add({ userId, page: "/too-late", at }, "too-late", 60 * MIN);
  }
  return out.sort((a, b) => a.arrives - b.arrives || a.n - b.n).map((x) => x.d);
}

interface StoredSession {
  startMs: number;
  endMs: number;
  views: { at: number; page: string }[];
  /** Emitted by the suppression; it stays in the store and can still be merged (into a new session). */
  emitted: boolean;
}

export interface ExpectedSessions {
  /** The final sessions, in the order they closed. */
  sessions: Session[];
  dropped: number;
  /** Records that merged two or more existing sessions. */
  merges: number;
}

/**
 * Kafka Streams' session windows with `suppress(untilWindowCloses)`, record by record in
 * arrival order: stream time is the largest event time seen; a view joins every session of
 * its user that ends at or after `t - gap` and starts at or before `t + gap`; it is dropped
 * when the merged session's end is before `streamTime - gap - grace`; the suppression
 * emits a session once the largest session end it has seen reaches `end + gap + grace`,
 * and never a session that was merged away.
 */
export function expectedSessions(views: readonly PageView[], config: SessionsConfig): ExpectedSessions {
  const gap = config.inactivityGapMs;
  const grace = config.graceMs;
  const store = new Map<string, StoredSession[]>();
  const result: ExpectedSessions = { sessions: [], dropped: 0, merges: 0 };
  let streamTime = -Infinity;
  let suppressTime = -Infinity;
  for (const view of views) {
    streamTime = Math.max(streamTime, view.at);
    const mine = store.get(view.userId) ?? [];
    const overlapping = mine.filter((s) => s.endMs >= view.at - gap && s.startMs <= view.at + gap);
    const startMs = Math.min(view.at, ...overlapping.map((s) => s.startMs));
    const endMs = Math.max(view.at, ...overlapping.map((s) => s.endMs));
    if (endMs < streamTime - gap - grace) {
      result.dropped++;
      continue;
    }
    if (overlapping.length >= 2) result.merges++;
    const views2 = [...overlapping.flatMap((s) => s.views), { at: view.at, page: view.page }];
    store.set(view.userId, [...mine.filter((s) => !overlapping.includes(s)), { startMs, endMs, views: views2, emitted: false }]);
    suppressTime = Math.max(suppressTime, endMs, ...overlapping.map((s) => s.endMs));
    for (const [userId, sessions] of store) {
      const closed = sessions.filter((s) => !s.emitted && s.endMs + gap + grace <= suppressTime).sort((a, b) => a.endMs - b.endMs);
      for (const s of closed) {
        s.emitted = true;
        const ordered = [...s.views].sort((a, b) => a.at - b.at || (a.page < b.page ? -1 : a.page > b.page ? 1 : 0));
        result.sessions.push({ userId, startMs: s.startMs, endMs: s.endMs, durationMs: s.endMs - s.startMs, pageCount: ordered.length, path: ordered.map((v) => v.page) });
      }
    }
  }
  return result;
}

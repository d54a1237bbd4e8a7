/**
 * Seeded input for the fraud service and its expected alerts by brute force: every payment
 * is checked against the whole history kept in plain arrays, with the rules' definitions
 * written out again here (not the service's code).
 */
import type { FraudConfig } from "../../../services/fraud/config.ts";
import type { Card, Customer, CustomerTier, Payment } from "../../../services/fraud/model.ts";
import { int, pick, rng } from "../joins/oracle-helpers.ts";

export type FraudEvent =
  | { topic: "payments"; key: string; value: Payment; timestamp: number }
  | { topic: "cards"; key: string; value: Card | null; timestamp: number }
  | { topic: "customers"; key: string; value: Customer | null; timestamp: number };

export interface FraudInputOptions {
  payments: number;
  /** How far behind the newest payment a straggler may be (ms); some are this late. */
  maxLatenessMs: number;
  /** Whether cards and customers change and disappear between payments. */
  tableChanges: boolean;
  /** Start of event time. */
  baseMs: number;
}

export const COUNTRIES = ["NL", "DE", "FR", "US", "BR"];
const SEC = 1000;

/** Cards and customers first, then payments with bursts, spikes, foreign charges, stragglers and (optionally) table changes. */
export function fraudInput(seed: number, options: FraudInputOptions): FraudEvent[] {
  const random = rng(seed);
  const events: FraudEvent[] = [];
  const customers = Array.from({ length: 6 }, (_, i) => `cust-${i}`);
  const cards = Array.from({ length: 10 }, (_, i) => `card-${i}`);
  const tier = (): CustomerTier => (random() < 0.3 ? "vip" : "standard");
  let newest = options.baseMs;
  for (const c of customers) events.push({ topic: "customers", key: c, value: { name: `Customer ${c}`, tier: tier() }, timestamp: newest });
  const home = new Map<string, string>();
  for (const card of cards) {
    home.set(card, pick(random, COUNTRIES));
    events.push({ topic: "cards", key: card, value: { customerId: pick(random, customers), homeCountry: home.get(card)! }, timestamp: newest });
  }
  const usual = new Map(cards.map((c) => [c, int(random, 10, 80) * 100]));
  let clock = options.baseMs;
  let burst: { card: string; left: number } | null = null;
  for (let n = 0; n < options.payments; n++) {
    if (options.tableChanges && random() < 0.04) {
      const roll = random();
      if (roll < 0.35) {
        const card = pick(random, cards);
        home.set(card, pick(random, COUNTRIES));
        events.push({ topic: "cards", key: card, value: { customerId: pick(random, customers), homeCountry: home.get(card)! }, timestamp: newest });
      } else if (roll < 0.55) {
        events.push({ topic: "cards", key: pick(random, cards), value: null, timestamp: newest });
      } else if (roll < 0.85) {
        events.push({ topic: "customers", key: pick(random, customers), value: { name: "renamed", tier: tier() }, timestamp: newest });
      } else {
        events.push({ topic: "customers", key: pick(random, customers), value: null, timestamp: newest });
      }
    }
    if (!burst && random() < 0.05) burst = { card: pick(random, cards), left: int(random, 4, 8) };
    const card = burst ? burst.card : pick(random, cards);
    clock += burst ? int(random, 1, 20) * SEC : int(random, 0, 90) * SEC;
    if (burst && --burst.left === 0) burst = null;
    const roll = random();
    const lateness = roll < 0.8 ? int(random, 0, 15) * SEC : roll < 0.95 ? int(random, 0, options.maxLatenessMs / 2) : options.maxLatenessMs;
    const at = Math.max(options.baseMs, clock - lateness);
    const spike = random() < 0.04;
    const amountCents = spike ? usual.get(card)! * int(random, 6, 15) : Math.round(usual.get(card)! * (0.5 + random()));
    const country = random() < 0.15 ? pick(random, COUNTRIES) : home.get(card)!;
    const payment: Payment = { paymentId: `pay-${n}`, cardId: card, amountCents, country, merchant: `m${int(random, 1, 30)}`, at };
    events.push({ topic: "payments", key: card, value: payment, timestamp: at });
    newest = Math.max(newest, at);
  }
  return events;
}

/**
 * A card of its own and one payment a day after everything, so that every window has closed.
 * The card's row carries the first event's time: a table row moves its task's stream time
 * like any record, so a later one read early would close windows before their payments.
 */
export function withFlush(events: readonly FraudEvent[]): FraudEvent[] {
  const newest = Math.max(...events.map((e) => e.timestamp));
  const at = newest + 24 * 3_600_000;
  return [
    ...events,
    { topic: "cards", key: "card-flush", value: { customerId: "cust-0", homeCountry: "NL" }, timestamp: events[0]!.timestamp },
    { topic: "payments", key: "card-flush", value: { paymentId: "pay-flush", cardId: "card-flush", amountCents: 100, country: "NL", merchant: "m0", at }, timestamp: at },
  ];
}

export interface ExpectedFraud {
  /** `<card>@<window start>` -> payments and total of each closed window with an alert. */
  velocity: Map<string, { payments: number; totalCents: number }>;
  /** Per card, the payment ids of its spend spikes, in order. */
  spikes: Map<string, string[]>;
  /** Foreign charges that follow a charge elsewhere; each with every partner that qualifies. */
  foreign: Map<string, { cardId: string; partners: Set<string> }>;
  /** Per card, how many alerts of each rule. */
  counts: Map<string, Record<string, number>>;
  /** Payments that joined a card (the rest have no card at their time). */
  joined: number;
}

/**
 * The alerts Kafka Streams' semantics give for `events` processed in this order by one
 * task: stream time is the largest payment time seen (table rows carry no later time).
 */
export function expectedFraud(events: readonly FraudEvent[], config: FraudConfig): ExpectedFraud {
  const { velocity, spike, foreign } = config;
  const cards = new Map<string, Card>();
  const customers = new Map<string, Customer>();
  let streamTime = -1;
  const windows = new Map<string, { payments: number; totalCents: number; endMs: number }>();
  const history = new Map<string, { payments: number; totalCents: number }>();
  const result: ExpectedFraud = { velocity: new Map(), spikes: new Map(), foreign: new Map(), counts: new Map(), joined: 0 };
  type Charge = { paymentId: string; at: number; country: string; foreign: boolean };
  const charges = new Map<string, Charge[]>();
  const newestCharge = new Map<string, number>();
  const count = (card: string, rule: string) => {
    const c = result.counts.get(card) ?? {};
    c[rule] = (c[rule] ?? 0) + 1;
    result.counts.set(card, c);
  };

  for (const e of events) {
    if (e.topic === "cards") {
      if (e.value === null) cards.delete(e.key);
      else cards.set(e.key, e.value);
      continue;
    }
    if (e.topic === "customers") {
      if (e.value === null) customers.delete(e.key);
      else customers.set(e.key, e.value);
      continue;
    }
    const p = e.value;
    streamTime = Math.max(streamTime, p.at); // a payment moves stream time even when it finds no card
    const card = cards.get(e.key);
    if (!card) continue;
    result.joined++;
    const tier = customers.get(card.customerId)?.tier ?? "standard";
    // (a) every hopping window [start, start + size) containing p.at that has not closed (end + grace)
    for (let start = p.at - (p.at % velocity.advanceMs); start > p.at - velocity.windowMs; start -= velocity.advanceMs) {
      if (start < 0) break;
      const end = start + velocity.windowMs;
      if (streamTime >= end + velocity.graceMs) continue;
      const id = `${e.key}@${start}`;
      const w = windows.get(id) ?? { payments: 0, totalCents: 0, endMs: end };
      windows.set(id, { payments: w.payments + 1, totalCents: w.totalCents + p.amountCents, endMs: end });
    }
    // (b) far above the average of the card's earlier non-spike payments
    const h = history.get(e.key) ?? { payments: 0, totalCents: 0 };
    // amount > factor * (total / payments), multiplied out so that it is exact
    if (h.payments >= spike.minHistory && p.amountCents >= spike.minAmountCents && p.amountCents * h.payments > spike.factor[tier] * h.totalCents) {
      result.spikes.set(e.key, [...(result.spikes.get(e.key) ?? []), p.paymentId]);
      count(e.key, "spend-spike");
    } else {
      history.set(e.key, { payments: h.payments + 1, totalCents: h.totalCents + p.amountCents });
    }
    // (c) keep every charge not too late for its card; pairs are found at the end
    const newest = Math.max(newestCharge.get(e.key) ?? p.at, p.at);
    if (p.at >= (newestCharge.get(e.key) ?? p.at) - foreign.graceMs) {
      charges.set(e.key, [...(charges.get(e.key) ?? []), { paymentId: p.paymentId, at: p.at, country: p.country, foreign: p.country !== card.homeCountry }]);
      newestCharge.set(e.key, newest);
    }
  }
  for (const [id, w] of windows) {
    if (streamTime >= w.endMs + velocity.graceMs && w.payments >= velocity.maxPayments) {
      result.velocity.set(id, { payments: w.payments, totalCents: w.totalCents });
      count(id.slice(0, id.indexOf("@")), "velocity");
    }
  }
  for (const [cardId, list] of charges) {
    for (const f of list) {
      if (!f.foreign) continue;
      const partners = list.filter((q) => q !== f && q.country !== f.country && q.at <= f.at && f.at - q.at <= foreign.withinMs);
      if (partners.length === 0) continue;
      result.foreign.set(f.paymentId, { cardId, partners: new Set(partners.map((q) => q.paymentId)) });
      count(cardId, "foreign-after-charge");
    }
  }
  return result;
}

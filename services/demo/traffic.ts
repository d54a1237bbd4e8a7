/**
 * The demo's traffic: a population of customers and cards, then batches of card payments
 * with their change-data-capture stream, on a simulated clock that runs `speed` times
 * faster than the wall clock (so five-minute velocity windows close every few seconds).
 *
 * What it mixes in, each counted in `TrafficStats`:
 * - out-of-order payments: every payment is up to 20 s (event time) older than the clock,
 *   and a few are 25-45 s older, still within the velocity windows' 1 minute of grace;
 * - late payments 8-12 minutes old, past every window's end + grace: the windows drop them;
 * - undecodable payment records (not JSON), which go to the dead-letter topic;
 * - CDC: customer tier and name updates, customer deletes (GDPR erasure: the card stays,
 *   its customer becomes unknown), new cards, deletes of dormant cards;
 * - fraud patterns: bursts (velocity), spend spikes, a charge followed by a foreign charge.
 *
 * Every payment is for a card whose joined profile the service already has (`hasProfile`),
 * so each decodable payment is scored: the demo's accounting relies on it.
 */
import type { Card, Customer, Payment } from "../fraud/model.ts";
import { seededRandom } from "../../lib/testing/index.ts";

export interface TrafficRecord {
  key: string;
  /** JSON, a deliberately broken string, or null for a tombstone (CDC delete). */
  value: string | null;
  timestamp: number;
}

export interface TrafficBatch {
  customers: TrafficRecord[];
  cards: TrafficRecord[];
  payments: TrafficRecord[];
  /** What this batch added to the stats (taken back if Kafka never got it). */
  counted?: TrafficStats;
}

export interface TrafficStats {
  /** Payment records handed to Kafka, undecodable ones included. */
  payments: number;
  /** Payments more than 20 s behind the clock but within the windows' grace. */
  outOfOrder: number;
  /** Payments sent 8-12 minutes late, past every window's grace. */
  late: number;
  undecodable: number;
  bursts: number;
  spikes: number;
  foreignCharges: number;
  customerUpdates: number;
  customerDeletes: number;
  cardsIssued: number;
  cardDeletes: number;
}

export interface TrafficOptions {
  customers: number;
  cards: number;
  /** Event time of the first rows (ms). */
  startMs: number;
  /** Simulated milliseconds per wall-clock millisecond. */
  speed: number;
  /** Whether the service already joined this card with its customer (an interactive query). */
  hasProfile: (cardId: string) => boolean;
  random?: () => number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const COUNTRIES = ["NL", "DE", "FR", "BE", "ES", "IT", "PL", "SE"];
const FAR_AWAY = ["US", "BR", "TH", "NG", "RU", "VN"];
const MERCHANTS = ["grocer", "fuel", "cafe", "books", "pharmacy", "transit", "bakery", "online-store", "cinema", "hardware"];
const NAMES = ["Ada", "Bram", "Chloe", "Daan", "Eva", "Finn", "Greta", "Hugo", "Iris", "Jules", "Kim", "Lena", "Milan", "Noor", "Otto", "Pia"];

interface CardState {
  id: string;
  card: Card;
  /** The card's usual payment, in cents. */
  typicalCents: number;
  payments: number;
}

/** A seeded generator, so a run can be repeated. */
export const seeded = seededRandom;

export class Traffic {
  readonly stats: TrafficStats = {
    payments: 0, outOfOrder: 0, late: 0, undecodable: 0, bursts: 0, spikes: 0, foreignCharges: 0,
    customerUpdates: 0, customerDeletes: 0, cardsIssued: 0, cardDeletes: 0,
  };
  readonly #options: TrafficOptions;
  readonly #random: () => number;
  readonly #customers = new Map<string, Customer>();
  /** Cards that pay; never deleted, so no payment can miss its card. */
  readonly #active: CardState[] = [];
  /** Issued cards waiting for the service to join them with their customer before they pay. */
  readonly #issued: CardState[] = [];
  /** Cards that never pay (expired, replaced): the ones CDC deletes. */
  readonly #dormant: string[] = [];
  /** Foreign charges waiting for their moment (event time), each after a charge at home. */
  readonly #pending: { dueMs: number; cardId: string; payment: () => Payment }[] = [];
  #wallStart = Date.now();
  #nextPayment = 0;
  #nextCard = 0;

  constructor(options: TrafficOptions) {
    this.#options = options;
    this.#random = options.random ?? Math.random;
  }

  /** Event time now. */
  nowMs(wallMs = Date.now()): number {
    return Math.round(this.#options.startMs + (wallMs - this.#wallStart) * this.#options.speed);
  }

  /** The initial customers and cards (active and dormant), stamped with the start time; restarts the clock. */
  population(): TrafficBatch {
    const { customers, cards, startMs } = this.#options;
    this.#wallStart = Date.now();
    const batch: TrafficBatch = { customers: [], cards: [], payments: [] };
    for (let i = 0; i < customers; i++) {
      const customer: Customer = { name: `${this.#pick(NAMES)} ${String.fromCharCode(65 + (i % 26))}.`, tier: this.#random() < 0.15 ? "vip" : "standard" };
      this.#customers.set(`cust-${i}`, customer);
      batch.customers.push({ key: `cust-${i}`, value: JSON.stringify(customer), timestamp: startMs });
    }
    for (let i = 0; i < cards; i++) {
      const state = this.#newCard();
      if (i % 10 === 9) this.#dormant.push(state.id);
      else this.#active.push(state);
      batch.cards.push({ key: state.id, value: JSON.stringify(state.card), timestamp: startMs });
    }
    return batch;
  }

  /** The card ids that will pay (the demo waits for the service to know them all). */
  activeCardIds(): string[] {
    return this.#active.map((c) => c.id);
  }

  /** About `count` payments (patterns add a few) and the CDC of the same moment. */
  next(count: number): TrafficBatch {
    const before = { ...this.stats };
    const now = this.nowMs();
    const batch: TrafficBatch = { customers: [], cards: [], payments: [] };
    this.#changeData(now, batch);
    this.#activateIssued();
    for (let i = 0; i < count; i++) {
      const r = this.#random();
      if (r < 0.0025) {
        const card = this.#pick(this.#active);
        this.stats.undecodable++;
        batch.payments.push({ key: card.id, value: `{"paymentId": "p-${this.#nextPayment++}", "amountCents": 12` + "\u0000garbled", timestamp: now });
      } else if (r < 0.0075 && this.#sinceStartMs() > 5 * SECOND) {
        this.stats.late++;
        this.#pay(batch, this.#pick(this.#active), now - 8 * MINUTE - this.#random() * 4 * MINUTE);
      } else if (r < 0.0375) {
        this.stats.outOfOrder++;
        this.#pay(batch, this.#pick(this.#active), now - 25 * SECOND - this.#random() * 20 * SECOND);
      } else {
        this.#pay(batch, this.#pick(this.#active), now - this.#random() * 20 * SECOND);
      }
    }
    this.#patterns(now, count, batch);
    this.stats.payments += batch.payments.length;
    batch.counted = Object.fromEntries(Object.entries(this.stats).map(([k, v]) => [k, v - before[k as keyof TrafficStats]])) as unknown as TrafficStats;
    return batch;
  }

  /** Kafka never got this batch: as far as the accounting goes, it was not generated. */
  unsent(batch: TrafficBatch): void {
    for (const [k, v] of Object.entries(batch.counted ?? {})) this.stats[k as keyof TrafficStats] -= v;
  }

  #sinceStartMs(): number {
    return Date.now() - this.#wallStart;
  }

  #patterns(now: number, count: number, batch: TrafficBatch): void {
    // About one pattern of each kind per 400 payments.
    const chance = count / 400;
    if (this.#random() < chance) {
      const card = this.#pick(this.#active);
      this.stats.bursts++;
      for (let i = 0; i < 7; i++) this.#pay(batch, card, now - 50 * SECOND + i * 7 * SECOND, Math.round(card.typicalCents * 0.3));
    }
    if (this.#random() < chance) {
      // A spike needs a history: a card with a few payments already (bursts make some).
      const card = this.#active.filter((c) => c.payments >= 7).sort((a, b) => b.payments - a.payments)[Math.floor(this.#random() * 20)];
      if (card) {
        this.stats.spikes++;
        this.#pay(batch, card, now, Math.max(20_000, card.typicalCents * 40));
      }
    }
    if (this.#random() < chance) {
      const card = this.#pick(this.#active);
      const home = this.#pay(batch, card, now);
      const abroad = this.#pick(FAR_AWAY);
      const dueMs = Math.round(now + (5 + this.#random() * 20) * MINUTE);
      this.#pending.push({
        dueMs,
        cardId: card.id,
        payment: () => ({ ...home, paymentId: `p-${this.#nextPayment++}`, amountCents: Math.round(card.typicalCents * 3), country: abroad, merchant: "electronics", at: dueMs }),
      });
    }
    for (const due of this.#pending.filter((p) => p.dueMs <= now)) {
      this.#pending.splice(this.#pending.indexOf(due), 1);
      const payment = due.payment();
      this.stats.foreignCharges++;
      batch.payments.push({ key: due.cardId, value: JSON.stringify(payment), timestamp: payment.at });
    }
  }

  #pay(batch: TrafficBatch, card: CardState, at: number, amountCents?: number): Payment {
    const amount = amountCents ?? Math.max(100, Math.round(card.typicalCents * (0.4 + this.#random() * 1.2)));
    const payment: Payment = { paymentId: `p-${this.#nextPayment++}`, cardId: card.id, amountCents: amount, country: card.card.homeCountry, merchant: this.#pick(MERCHANTS), at: Math.round(at) };
    card.payments++;
    batch.payments.push({ key: card.id, value: JSON.stringify(payment), timestamp: payment.at });
    return payment;
  }

  /** Roughly every few seconds a change to a customer or a card, as CDC would capture it. */
  #changeData(now: number, batch: TrafficBatch): void {
    const r = this.#random();
    if (r < 0.08) {
      const id = `cust-${Math.floor(this.#random() * this.#options.customers)}`;
      const customer = this.#customers.get(id);
      if (!customer) return;
      const updated: Customer = this.#random() < 0.5 ? { ...customer, tier: customer.tier === "vip" ? "standard" : "vip" } : { ...customer, name: `${this.#pick(NAMES)} ${customer.name.split(" ")[1]}` };
      this.#customers.set(id, updated);
      this.stats.customerUpdates++;
      batch.customers.push({ key: id, value: JSON.stringify(updated), timestamp: now });
    } else if (r < 0.09) {
      const id = `cust-${Math.floor(this.#random() * this.#options.customers)}`;
      if (!this.#customers.delete(id)) return;
      this.stats.customerDeletes++;
      batch.customers.push({ key: id, value: null, timestamp: now });
    } else if (r < 0.11) {
      const state = this.#newCard();
      this.#issued.push(state);
      this.stats.cardsIssued++;
      batch.cards.push({ key: state.id, value: JSON.stringify(state.card), timestamp: now });
    } else if (r < 0.12 && this.#dormant.length > 0) {
      const id = this.#dormant.splice(Math.floor(this.#random() * this.#dormant.length), 1)[0]!;
      this.stats.cardDeletes++;
      batch.cards.push({ key: id, value: null, timestamp: now });
    }
  }

  #activateIssued(): void {
    for (const state of [...this.#issued]) {
      if (!this.#options.hasProfile(state.id)) continue;
      this.#issued.splice(this.#issued.indexOf(state), 1);
      this.#active.push(state);
    }
  }

  #newCard(): CardState {
    const id = `card-${String(this.#nextCard++).padStart(4, "0")}`;
    const customerIds = [...this.#customers.keys()];
    return {
      id,
      card: { customerId: this.#pick(customerIds), homeCountry: this.#pick(COUNTRIES) },
      typicalCents: Math.round(500 + this.#random() ** 2 * 9000),
      payments: 0,
    };
  }

  #pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#random() * items.length)]!;
  }
}

/** The records the fraud service reads, derives and writes. Amounts are integer cents. */

/** A card payment on the `payments` topic, keyed by card id. `at` is its event time (ms). */
export interface Payment {
  paymentId: string;
  cardId: string;
  amountCents: number;
  country: string;
  merchant: string;
  at: number;
}

/** A row of the `cards` changelog (compacted, fed by change data capture), keyed by card id; a tombstone deletes the card. */
export interface Card {
  customerId: string;
  homeCountry: string;
}

export type CustomerTier = "standard" | "vip";

/** A row of the `customers` changelog, keyed by customer id; a tombstone deletes the customer. */
export interface Customer {
  name: string;
  tier: CustomerTier;
}

/** A card with its customer, as the card-to-customer foreign-key join keeps it (customer null when unknown). */
export interface CardProfile {
  customerId: string;
  homeCountry: string;
  customer: Customer | null;
}

/** A payment with what its card and customer say about it. */
export interface EnrichedPayment extends Payment {
  customerId: string;
  homeCountry: string;
  tier: CustomerTier;
}

export type AlertRule = "velocity" | "spend-spike" | "foreign-after-charge";

/** What goes to the alerts topic, keyed by card id: which rule fired and why. */
export interface Alert {
  rule: AlertRule;
  cardId: string;
  customerId: string;
  /** The payment that raised it; for velocity, the window's last payment is not tracked, so null. */
  paymentId: string | null;
  at: number;
  reason: string;
  details: Record<string, unknown>;
}

/** A card's running spend profile: what "usual" means for rule (b). */
export interface SpendProfile {
  payments: number;
  totalCents: number;
}

/** The queryable risk state of a card, folded from its alerts. */
export interface RiskState {
  cardId: string;
  customerId: string;
  alerts: number;
  byRule: Record<AlertRule, number>;
  score: number;
  level: "low" | "elevated" | "high";
  lastAlert: Alert | null;
}

/** One hopping window's payments of a card (rule (a)). */
export interface Velocity {
  customerId: string;
  payments: number;
  totalCents: number;
}

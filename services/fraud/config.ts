const MINUTE = 60_000;

export interface FraudTopics {
  payments: string;
  cards: string;
  customers: string;
  alerts: string;
}

/** Everything the fraud topology is built from; `defaultFraudConfig()` gives the production values. */
export interface FraudConfig {
  topics: FraudTopics;
  /** Rule (a): at least `maxPayments` payments of one card in a hopping window raise an alert once the window closes. */
  velocity: { windowMs: number; advanceMs: number; graceMs: number; maxPayments: number };
  /**
   * Rule (b): a payment of at least `minAmountCents` that is more than `factor[tier]` times
   * the card's average, once the card has `minHistory` payments. Flagged payments are kept
   * out of the profile, so one spike does not make the next look usual.
   */
  spike: { minHistory: number; minAmountCents: number; factor: { standard: number; vip: number } };
  /**
   * Rule (c): a foreign charge (country other than the card's home) within `withinMs` after
   * another charge of the card in a different country. Charges may arrive in any order as
   * long as neither is more than `graceMs` older than the newest charge of the card seen.
   */
  foreign: { withinMs: number; graceMs: number };
}

export function defaultFraudConfig(topics: Partial<FraudTopics> = {}): FraudConfig {
  return {
    topics: { payments: "payments", cards: "cards", customers: "customers", alerts: "fraud-alerts", ...topics },
    velocity: { windowMs: 5 * MINUTE, advanceMs: MINUTE, graceMs: MINUTE, maxPayments: 5 },
    spike: { minHistory: 5, minAmountCents: 10_000, factor: { standard: 5, vip: 10 } },
    foreign: { withinMs: 30 * MINUTE, graceMs: 10 * MINUTE },
  };
}

/** Risk weight of each rule in a card's score, and the score thresholds of its level. */
export const RULE_WEIGHT = { velocity: 2, "spend-spike": 3, "foreign-after-charge": 5 } as const;
export const ELEVATED_SCORE = 3;
export const HIGH_SCORE = 8;

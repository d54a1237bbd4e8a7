import {
  Consumed,
  EmitStrategy,
  Grouped,
  Materialized,
  Named,
  Produced,
  Serdes,
  StreamsBuilder,
  TableJoined,
  TimeWindows,
  type KStream,
  type Topology,
} from "../../lib/index.ts";
import { ELEVATED_SCORE, HIGH_SCORE, RULE_WEIGHT, type FraudConfig } from "./config.ts";
import { foreignChargeProcessor, RECENT_CHARGES_STORE, recentChargesStore } from "./foreign-charge.ts";
import type { Alert, Card, CardProfile, Customer, EnrichedPayment, Payment, RiskState, Velocity } from "./model.ts";
import { SPEND_PROFILE_STORE, spendProfileStore, spendSpikeProcessor } from "./spend-spike.ts";

/** card id -> the card joined with its customer. */
export const CARD_PROFILE_STORE = "card-profiles";
/** card id -> its risk state, folded from its alerts (GET /cards/<id>). */
export const RISK_STORE = "card-risk";
/** The per-card hopping-window counts of rule (a). */
export const VELOCITY_STORE = "card-velocity";

/** The risk state of a card with no alerts. */
export function noRisk(cardId: string, customerId = ""): RiskState {
  return { cardId, customerId, alerts: 0, byRule: { velocity: 0, "spend-spike": 0, "foreign-after-charge": 0 }, score: 0, level: "low", lastAlert: null };
}

/** Folds one alert into a card's risk state. */
export function addAlert(state: RiskState, alert: Alert): RiskState {
  const score = state.score + RULE_WEIGHT[alert.rule];
  return {
    cardId: alert.cardId,
    customerId: alert.customerId,
    alerts: state.alerts + 1,
    byRule: { ...state.byRule, [alert.rule]: state.byRule[alert.rule] + 1 },
    score,
    level: score >= HIGH_SCORE ? "high" : score >= ELEVATED_SCORE ? "elevated" : "low",
    lastAlert: alert,
  };
}

/**
 * Fraud detection over card payments:
 *
 * 1. **Enrichment.** `cards` (card id -> customer id, home country) and `customers` are
 *    compacted changelogs, updated and deleted in place. A foreign-key join reaches each
 *    card's customer (`card-profiles`); payments, keyed by card id, join it (stream-table).
 *    Payments of unknown or deleted cards find no row and are not scored.
 * 2. **Rules**, each raising an {@link Alert}:
 *    (a) `velocity`: at least `maxPayments` payments of a card in a hopping window of event
 *        time, emitted once when the window closes (end + grace);
 *    (b) `spend-spike`: a payment far above the card's running average (`spend-profiles`);
 *    (c) `foreign-after-charge`: a foreign charge within 30 minutes after a charge elsewhere,
 *        a Processor API pattern over `recent-charges` that does not depend on arrival order.
 * 3. **Output.** Alerts go to the alerts topic (JSON, keyed by card id) and are folded per
 *    card into the queryable `card-risk` store.
 */
export function fraudTopology(config: FraudConfig): Topology {
  const { topics, velocity, spike, foreign } = config;
  const b = new StreamsBuilder();
  const alertSerde = Serdes.json<Alert>();
  const enrichedSerde = Serdes.json<EnrichedPayment>();

  const cards = b.table(topics.cards, Consumed.with(Serdes.string(), Serdes.json<Card>()), Materialized.as("cards"));
  const customers = b.table(topics.customers, Consumed.with(Serdes.string(), Serdes.json<Customer>()), Materialized.as("customers"));
  const profiles = cards.leftJoin(
    customers,
    (card) => card.customerId,
    (card, customer): CardProfile => ({ customerId: card.customerId, homeCountry: card.homeCountry, customer }),
    TableJoined.as("card-customer"),
    Materialized.as<string, CardProfile>(CARD_PROFILE_STORE).withValueSerde(Serdes.json<CardProfile>()),
  );

  const enriched: KStream<string, EnrichedPayment> = b
    .stream(topics.payments, Consumed.with(Serdes.string(), Serdes.json<Payment>()))
    .filter((cardId, p): cardId is string => cardId !== null && p !== null, Named.as("valid-payments"))
    .mapValues((p) => p!, Named.as("payment"))
    .join(profiles, (p, profile): EnrichedPayment => ({
      ...p,
      customerId: profile.customerId,
      homeCountry: profile.homeCountry,
      tier: profile.customer?.tier ?? "standard",
    }));

  const velocityAlerts = enriched
    .groupByKey(Grouped.with(Serdes.string(), enrichedSerde))
    .windowedBy(TimeWindows.ofSizeAndGrace(velocity.windowMs, velocity.graceMs).advanceBy(velocity.advanceMs))
    .emitStrategy(EmitStrategy.onWindowClose())
    .aggregate(
      (): Velocity => ({ customerId: "", payments: 0, totalCents: 0 }),
      (_, p, v) => ({ customerId: p.customerId, payments: v.payments + 1, totalCents: v.totalCents + p.amountCents }),
      Named.as("velocity"),
      Materialized.as<string, Velocity>(VELOCITY_STORE).withValueSerde(Serdes.json<Velocity>()),
    )
    .toStream(Named.as("closed-windows"))
    .filter((_, v) => v !== null && v.payments >= velocity.maxPayments, Named.as("too-many-payments"))
    .map(
      (w, v): readonly [string, Alert] => [
        w.key,
        {
          rule: "velocity",
          cardId: w.key,
          customerId: v!.customerId,
          paymentId: null,
          at: w.window.endMs,
          reason: `${v!.payments} payments (${v!.totalCents} cents) between ${new Date(w.window.startMs).toISOString()} and ${new Date(w.window.endMs).toISOString()}, at most ${velocity.maxPayments - 1} expected`,
          details: { windowStartMs: w.window.startMs, windowEndMs: w.window.endMs, payments: v!.payments, totalCents: v!.totalCents },
        },
      ],
      Named.as("velocity-alert"),
    );

  b.addStateStore(spendProfileStore());
  b.addStateStore(recentChargesStore());
  const spikeAlerts = enriched.processValues(spendSpikeProcessor(spike), Named.as("spend-spike"), SPEND_PROFILE_STORE);
  const foreignAlerts = enriched.processValues(foreignChargeProcessor(foreign), Named.as("foreign-after-charge"), RECENT_CHARGES_STORE);

  const alerts = spikeAlerts.merge(foreignAlerts, Named.as("pattern-alerts")).merge(velocityAlerts, Named.as("alerts"));
  alerts.to(topics.alerts, Produced.with(Serdes.string(), alertSerde));
  alerts
    .groupByKey(Grouped.with(Serdes.string(), alertSerde).withName("alerts-by-card"))
    .aggregate(() => noRisk(""), (cardId, alert, state) => addAlert(state, alert), Named.as("risk"), Materialized.as<string, RiskState>(RISK_STORE).withValueSerde(Serdes.json<RiskState>()));
  return b.build();
}

/**
 * Where every generated payment record is, from three independent sources: the generator
 * (what it sent), the broker (what the payments topic holds) and the service (its stores,
 * and the late and dead-lettered payments it committed to their topics):
 *
 *   generated = in results + dropped late + dead-lettered + not yet processed
 *
 * "In results": scored on time, its effect in the queryable stores (the card's spend
 * profile, or a spike alert in its risk state). "Dropped late": too late for every velocity
 * window (still scored by the per-card rules, but dropped from the window counts).
 * "Not yet processed": still being sent, or in Kafka waiting for the service (lag), or on
 * its way through the service's internal topics. It reaches 0 once the generator stops.
 */
import type { StreamsApp } from "../../lib/index.ts";
import type { RiskState, SpendProfile } from "../fraud/model.ts";
import { SPEND_PROFILE_STORE } from "../fraud/spend-spike.ts";
import { RISK_STORE } from "../fraud/topology.ts";
import type { Downstream } from "./downstream.ts";

export interface Accounts {
  generated: number;
  inResults: number;
  droppedLate: number;
  deadLettered: number;
  notYetProcessed: number;
  /** Payment records in Kafka (end offsets): generated minus those still being sent. */
  inKafka: number;
  /** In Kafka but not yet taken by the service: in Kafka minus what the service has counted. */
  lag: number;
}

/**
 * What the service has done with payments so far: scored ones from its stores (local state,
 * which a rewind rolls back with the offsets), late and dead-lettered ones as committed to
 * their topics.
 */
export function serviceCounts(app: StreamsApp, downstream: Downstream): { scored: number; droppedLate: number; deadLettered: number } {
  let scored = 0;
  for (const { value } of app.store<string, SpendProfile>(SPEND_PROFILE_STORE).all()) scored += value.payments;
  for (const { value } of app.store<string, RiskState>(RISK_STORE).all()) scored += value.byRule["spend-spike"];
  return { scored, droppedLate: downstream.lateRecords, deadLettered: downstream.deadLetters };
}

/**
 * The equation's terms. `service` is read before the broker's count and `generated` after,
 * so that every record the service counted is in Kafka and every record in Kafka was sent.
 */
export function accounts(service: ReturnType<typeof serviceCounts>, inKafka: number, generated: number): Accounts {
  const inResults = service.scored - service.droppedLate;
  const counted = service.scored + service.deadLettered;
  return {
    generated,
    inResults,
    droppedLate: service.droppedLate,
    deadLettered: service.deadLettered,
    notYetProcessed: generated - counted,
    inKafka,
    lag: inKafka - counted,
  };
}

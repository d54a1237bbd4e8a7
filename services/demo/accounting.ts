/**
 * Where every generated payment record is, from three independent sources: the generator
 * (what it sent), the broker (what the payments topic holds) and the service (its stores,
 * its windows' late count, its dead-letter handler):
 *
 *   generated = in results + dropped late + dead-lettered + not yet processed
 *
 * "In results": scored on time, its effect in the queryable stores (the card's spend
 * profile, or a spike alert in its risk state). "Dropped late": too late for every velocity
 * window (still scored by the per-card rules, but dropped from the window counts).
 * "Not yet processed": still being sent, or in Kafka waiting for the service (lag), or on
 * its way through the service's internal topics. It reaches 0 once the generator stops.
 */
import { WindowedMetrics, type StreamsApp } from "../../lib/index.ts";
import type { RiskState, SpendProfile } from "../fraud/model.ts";
import { SPEND_PROFILE_STORE } from "../fraud/spend-spike.ts";
import { RISK_STORE } from "../fraud/topology.ts";

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

/** What the service has done with payments so far, read synchronously from its stores and counters. */
export function serviceCounts(app: StreamsApp, applicationId: string, deadLettered: number): { scored: number; droppedLate: number; deadLettered: number } {
  let scored = 0;
  for (const { value } of app.store<string, SpendProfile>(SPEND_PROFILE_STORE).all()) scored += value.payments;
  for (const { value } of app.store<string, RiskState>(RISK_STORE).all()) scored += value.byRule["spend-spike"];
  let droppedLate = 0;
  for (const task of app.activeTasks()) droppedLate += WindowedMetrics.forTask(applicationId, task).lateRecords;
  return { scored, droppedLate, deadLettered };
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

import { Serdes, Stores, type FixedKeyProcessor, type FixedKeyProcessorContext, type FixedKeyRecord, type KeyValueStore } from "../../lib/index.ts";
import type { FraudConfig } from "./config.ts";
import type { Alert, EnrichedPayment } from "./model.ts";

/** A charge the pattern still needs, with whether it was foreign when it arrived and whether it has been alerted. */
export interface RecentCharge {
  paymentId: string;
  at: number;
  country: string;
  foreign: boolean;
  alerted: boolean;
}

/** Per card: the newest charge time seen and the charges that a new on-time charge can still match. */
export interface RecentCharges {
  observedMs: number;
  charges: RecentCharge[];
}

export const RECENT_CHARGES_STORE = "recent-charges";

export function recentChargesStore() {
  return Stores.keyValueStoreBuilder(RECENT_CHARGES_STORE, Serdes.string(), Serdes.json<RecentCharges>());
}

/** Whether `earlier` followed by the foreign charge `foreign` is the pattern: another country, at most `withinMs` before it. */
export function isForeignAfterCharge(earlier: { at: number; country: string }, foreign: { at: number; country: string }, withinMs: number): boolean {
  return earlier.country !== foreign.country && earlier.at <= foreign.at && foreign.at - earlier.at <= withinMs;
}

/**
 * Rule (c), a pattern over event time: a charge followed within `withinMs` by a foreign
 * charge in another country. Each charge is matched against the card's stored charges in
 * both directions (as the later, foreign one, and as the earlier one of a stored foreign
 * charge), so the arrival order of the two does not matter. Each foreign charge is alerted
 * at most once, when its first partner arrives.
 *
 * Time is per card: a charge more than `graceMs` older than the card's newest charge is too
 * late for the pattern (a later one could otherwise find partners that were already
 * expired). Charges older than `newest - withinMs - graceMs` can match no on-time charge
 * any more and are dropped from the store.
 */
export function foreignChargeProcessor(foreign: FraudConfig["foreign"]): () => FixedKeyProcessor<string, EnrichedPayment, Alert> {
  const { withinMs, graceMs } = foreign;
  return () => {
    let ctx!: FixedKeyProcessorContext<string, Alert>;
    let store!: KeyValueStore<string, RecentCharges>;
    const alert = (record: FixedKeyRecord<string, EnrichedPayment>, p: EnrichedPayment, charge: RecentCharge, partner: RecentCharge) =>
      ctx.forward(
        record.withValue<Alert>({
          rule: "foreign-after-charge",
          cardId: p.cardId,
          customerId: p.customerId,
          paymentId: charge.paymentId,
          at: charge.at,
          reason: `charge ${charge.paymentId} in ${charge.country} (home ${p.homeCountry}) ${Math.round((charge.at - partner.at) / 60_000)} min after charge ${partner.paymentId} in ${partner.country}`,
          details: { foreign: charge, earlier: { paymentId: partner.paymentId, at: partner.at, country: partner.country }, homeCountry: p.homeCountry },
        }),
      );
    return {
      init(context) {
        ctx = context;
        store = context.getStateStore<KeyValueStore<string, RecentCharges>>(RECENT_CHARGES_STORE);
      },
      process(record: FixedKeyRecord<string, EnrichedPayment>) {
        const p = record.value;
        const state = store.get(record.key) ?? { observedMs: p.at, charges: [] };
        if (p.at < state.observedMs - graceMs) return; // too late for the pattern
        const observedMs = Math.max(state.observedMs, p.at);
        const charge: RecentCharge = { paymentId: p.paymentId, at: p.at, country: p.country, foreign: p.country !== p.homeCountry, alerted: false };
        if (charge.foreign) {
          const partner = state.charges.find((q) => isForeignAfterCharge(q, charge, withinMs));
          if (partner) {
            charge.alerted = true;
            alert(record, p, charge, partner);
          }
        }
        for (const stored of state.charges) {
          if (stored.foreign && !stored.alerted && isForeignAfterCharge(charge, stored, withinMs)) {
            stored.alerted = true;
            alert(record, p, stored, charge);
          }
        }
        const horizon = observedMs - withinMs - graceMs;
        store.put(record.key, { observedMs, charges: [...state.charges, charge].filter((c) => c.at >= horizon) });
      },
    };
  };
}

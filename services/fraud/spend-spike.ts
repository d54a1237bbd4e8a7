import { Serdes, Stores, type FixedKeyProcessor, type FixedKeyProcessorContext, type FixedKeyRecord, type KeyValueStore } from "../../lib/index.ts";
import type { FraudConfig } from "./config.ts";
import type { Alert, EnrichedPayment, SpendProfile } from "./model.ts";

/** card id -> its running spend profile (queryable: GET /cards/<id> shows it). */
export const SPEND_PROFILE_STORE = "spend-profiles";

export function spendProfileStore() {
  return Stores.keyValueStoreBuilder(SPEND_PROFILE_STORE, Serdes.string(), Serdes.json<SpendProfile>());
}

/**
 * Whether `amountCents` is a spike against `profile`: compared in integers
 * (amount * payments > factor * total), so the decision never depends on rounding.
 */
export function isSpike(profile: SpendProfile, amountCents: number, factor: number, spike: FraudConfig["spike"]): boolean {
  return profile.payments >= spike.minHistory && amountCents >= spike.minAmountCents && amountCents * profile.payments > factor * profile.totalCents;
}

/**
 * Rule (b): compares each payment with the card's usual spend, kept per card in
 * `spend-profiles`, and forwards an alert when it is far above it. Payments are folded into
 * the profile in the order the card's partition delivers them.
 */
export function spendSpikeProcessor(spike: FraudConfig["spike"]): () => FixedKeyProcessor<string, EnrichedPayment, Alert> {
  return () => {
    let ctx!: FixedKeyProcessorContext<string, Alert>;
    let profiles!: KeyValueStore<string, SpendProfile>;
    return {
      init(context) {
        ctx = context;
        profiles = context.getStateStore<KeyValueStore<string, SpendProfile>>(SPEND_PROFILE_STORE);
      },
      process(record: FixedKeyRecord<string, EnrichedPayment>) {
        const p = record.value;
        const profile = profiles.get(record.key) ?? { payments: 0, totalCents: 0 };
        const factor = spike.factor[p.tier];
        if (isSpike(profile, p.amountCents, factor, spike)) {
          const averageCents = Math.round(profile.totalCents / profile.payments);
          ctx.forward(
            record.withValue<Alert>({
              rule: "spend-spike",
              cardId: p.cardId,
              customerId: p.customerId,
              paymentId: p.paymentId,
              at: p.at,
              reason: `${p.amountCents} cents is more than ${factor}x the card's average of ${averageCents} cents over ${profile.payments} payments (${p.tier} customer)`,
              details: { amountCents: p.amountCents, averageCents, history: profile.payments, factor },
            }),
          );
          return; // a spike is not "usual": it stays out of the profile
        }
        profiles.put(record.key, { payments: profile.payments + 1, totalCents: profile.totalCents + p.amountCents });
      },
    };
  };
}

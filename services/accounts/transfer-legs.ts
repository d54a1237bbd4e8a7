import { StreamRecord, type KeyValueStore, type Processor, type ProcessorContext } from "../../lib/index.ts";
import { ACCOUNT_STATE_STORE, applyEvent, type HandlerOutput } from "./command-handler.ts";
import type { AccountEvent, AccountState } from "./model.ts";

/**
 * The second half of a transfer, routed to the account it acts on: `credit` (from a
 * committed debit, keyed by the target) or `refund` (from a committed refund, keyed by the
 * source, whose command-side state must learn of it).
 */
export interface TransferLeg {
  kind: "credit" | "refund";
  event: AccountEvent;
}

/** The leg a committed event calls for, keyed by the account it must reach, or null. */
export function legFor(event: AccountEvent): readonly [string, TransferLeg] | null {
  if (event.type === "transfer-debited") return [event.counterparty!, { kind: "credit", event }];
  if (event.type === "transfer-refunded") return [event.accountId, { kind: "refund", event }];
  return null;
}

/**
 * Runs next to the command handler, on the same `account-state` store, for the accounts of
 * its partition:
 * - a credit leg credits the target and writes `transfer-credited`, or, when the target is
 *   not open, writes `transfer-refunded` for the source (which no credit will ever follow);
 * - a refund leg gives the amount back to the source's command-side state.
 * A debit therefore always gets exactly one counterpart event, credit or refund; under
 * exactly-once the leg's offset, the event and the state change commit together.
 */
export function transferLegHandler(): Processor<string, TransferLeg, string, HandlerOutput> {
  let ctx!: ProcessorContext<string, HandlerOutput>;
  let accounts!: KeyValueStore<string, AccountState>;
  return {
    init(context) {
      ctx = context;
      accounts = context.getStateStore<KeyValueStore<string, AccountState>>(ACCOUNT_STATE_STORE);
    },
    process(record: StreamRecord<string, TransferLeg>) {
      const { kind, event: debitOrRefund } = record.value;
      const state = accounts.get(record.key);
      const out = (key: string, value: HandlerOutput) => ctx.forward(new StreamRecord(key, value, record.timestamp));
      if (kind === "refund") {
        const next = applyEvent(state, debitOrRefund, 1);
        accounts.put(record.key, next);
        out(debitOrRefund.commandId, { commandId: debitOrRefund.commandId, accountId: record.key, status: "refunded", reason: `account ${debitOrRefund.counterparty} is not open`, balanceCents: next.balanceCents });
        return;
      }
      const debit = debitOrRefund;
      const source = debit.accountId;
      if (state === null) {
        out(source, { eventId: `${debit.commandId}:transfer-refunded`, commandId: debit.commandId, type: "transfer-refunded", accountId: source, amountCents: debit.amountCents, counterparty: record.key, at: debit.at });
        return;
      }
      const credit: AccountEvent = { eventId: `${debit.commandId}:transfer-credited`, commandId: debit.commandId, type: "transfer-credited", accountId: record.key, amountCents: debit.amountCents, counterparty: source, at: debit.at };
      accounts.put(record.key, applyEvent(state, credit, 1));
      out(record.key, credit);
      out(debit.commandId, { commandId: debit.commandId, accountId: source, status: "completed" });
    },
  };
}

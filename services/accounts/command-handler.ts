import { Serdes, StreamRecord, Stores, type KeyValueStore, type Processor, type ProcessorContext } from "../../lib/index.ts";
import type { AccountEvent, AccountState, Command, Reply } from "./model.ts";

/** account id -> its state on the command side (what commands are validated against). */
export const ACCOUNT_STATE_STORE = "account-state";

export function accountStateStore() {
  return Stores.keyValueStoreBuilder(ACCOUNT_STATE_STORE, Serdes.string(), Serdes.json<AccountState>());
}

/** What the command side forwards: events keyed by account id, replies keyed by command id. */
export type HandlerOutput = AccountEvent | Reply;

export function isEvent(output: HandlerOutput): output is AccountEvent {
  return "eventId" in output;
}

/** Applies an accepted event to the account it is keyed by. */
export function applyEvent(state: AccountState | null, event: AccountEvent, sign: 1 | -1 | 0): AccountState {
  const base = state ?? { owner: event.owner ?? "", balanceCents: 0, version: 0 };
  return { owner: base.owner, balanceCents: base.balanceCents + sign * event.amountCents, version: base.version + 1 };
}

/** Why a command cannot become an event against `state`, or null when it can. */
export function rejection(command: Command, state: AccountState | null): string | null {
  if (command.type === "open") return state ? `account ${command.accountId} is already open` : null;
  if (!state) return `account ${command.accountId} is not open`;
  if (!Number.isSafeInteger(command.amountCents) || command.amountCents <= 0) return `amount must be a positive whole number of cents, not ${command.amountCents}`;
  if (command.type === "deposit") return null;
  if (command.type === "transfer" && command.toAccountId === command.accountId) return "a transfer needs two different accounts";
  if (command.amountCents > state.balanceCents) return `insufficient funds: balance ${state.balanceCents} cents, ${command.type} of ${command.amountCents}`;
  return null;
}

/**
 * The command side: validates each command synchronously against the account's current
 * state (`account-state`, the task's own store, so no other command of the account can
 * interleave) and either writes the event and updates the state, or replies "rejected"
 * and writes nothing to the log. A command must be keyed by its account id. A transfer here is only its debit; the credit follows from
 * the committed debit event (see transfer-legs.ts).
 */
export function commandHandler(): Processor<string | null, Command, string, HandlerOutput> {
  let ctx!: ProcessorContext<string, HandlerOutput>;
  let accounts!: KeyValueStore<string, AccountState>;
  const reply = (record: StreamRecord<string | null, Command>, r: Reply) => ctx.forward(new StreamRecord(r.commandId, r, record.timestamp));
  return {
    init(context) {
      ctx = context;
      accounts = context.getStateStore<KeyValueStore<string, AccountState>>(ACCOUNT_STATE_STORE);
    },
    process(record) {
      const command = record.value;
      const state = accounts.get(command.accountId);
      // Every command of an account must reach the task that owns its state.
      const why =
        record.key !== command.accountId
          ? `the command's key (${record.key}) must be its account id (${command.accountId}), so that every command of an account reaches the same partition`
          : rejection(command, state);
      if (why !== null) {
        reply(record, { commandId: command.commandId, accountId: command.accountId, status: "rejected", reason: why, ...(state ? { balanceCents: state.balanceCents } : {}) });
        return;
      }
      const event: AccountEvent =
        command.type === "open"
          ? { eventId: `${command.commandId}:opened`, commandId: command.commandId, type: "opened", accountId: command.accountId, amountCents: 0, owner: command.owner, at: command.at }
          : command.type === "transfer"
            ? {
                eventId: `${command.commandId}:transfer-debited`,
                commandId: command.commandId,
                type: "transfer-debited",
                accountId: command.accountId,
                amountCents: command.amountCents,
                counterparty: command.toAccountId,
                at: command.at,
              }
            : {
                eventId: `${command.commandId}:${command.type === "deposit" ? "deposited" : "withdrawn"}`,
                commandId: command.commandId,
                type: command.type === "deposit" ? "deposited" : "withdrawn",
                accountId: command.accountId,
                amountCents: command.amountCents,
                at: command.at,
              };
      const next = applyEvent(state, event, command.type === "deposit" ? 1 : command.type === "open" ? 0 : -1);
      accounts.put(command.accountId, next);
      ctx.forward(new StreamRecord(event.accountId, event, record.timestamp));
      reply(record, { commandId: command.commandId, accountId: command.accountId, status: "accepted", balanceCents: next.balanceCents });
    },
  };
}

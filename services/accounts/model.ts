/** Commands in, events and replies out, and the states folded from them. Amounts are integer cents. */

/** What a client asks for, on the commands topic, keyed by the account it acts on (for a transfer: the source). */
export type Command =
  | { commandId: string; type: "open"; accountId: string; owner: string; at: number }
  | { commandId: string; type: "deposit" | "withdraw"; accountId: string; amountCents: number; at: number }
  | { commandId: string; type: "transfer"; accountId: string; toAccountId: string; amountCents: number; at: number };

export type EventType = "opened" | "deposited" | "withdrawn" | "transfer-debited" | "transfer-credited" | "transfer-refunded";

/**
 * What happened, on the event log (the source of truth), keyed by the account whose balance
 * it changes. `eventId` is `<commandId>:<type>`: one command makes each event at most once.
 */
export interface AccountEvent {
  eventId: string;
  commandId: string;
  type: EventType;
  accountId: string;
  amountCents: number;
  /** For transfer events: the other account. */
  counterparty?: string;
  owner?: string;
  at: number;
}

/**
 * The answer to a command on the replies topic, keyed by command id. A transfer gets
 * "accepted" when its source is debited, then "completed" (credited) or "refunded"
 * (the target does not exist; the amount went back).
 */
export interface Reply {
  commandId: string;
  accountId: string;
  status: "accepted" | "rejected" | "completed" | "refunded";
  reason?: string;
  balanceCents?: number;
}

/** An account as the command side validates against it. */
export interface AccountState {
  owner: string;
  balanceCents: number;
  /** Events applied to it, so a reply can say which version it saw. */
  version: number;
}

/** The balances read model, folded from the event log. */
export interface Balance {
  balanceCents: number;
  events: number;
}

/** A signed amount: what an event does to its account's balance. */
export function balanceChange(event: AccountEvent): number {
  switch (event.type) {
    case "opened":
      return 0;
    case "deposited":
    case "transfer-credited":
    case "transfer-refunded":
      return event.amountCents;
    case "withdrawn":
    case "transfer-debited":
      return -event.amountCents;
  }
}

export interface AccountsTopics {
  commands: string;
  events: string;
  replies: string;
}

export function defaultAccountsTopics(topics: Partial<AccountsTopics> = {}): AccountsTopics {
  return { commands: "account-commands", events: "account-events", replies: "account-replies", ...topics };
}

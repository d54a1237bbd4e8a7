/**
 * Seeded commands for the accounts service and, by brute force, the ledger they give: one
 * loop over the commands with every account's balance in a Map, transfers applied whole.
 */
import type { AccountEvent, Command, Reply } from "../../../services/accounts/model.ts";
import { int, pick, rng } from "../joins/oracle-helpers.ts";

export const ACCOUNTS = Array.from({ length: 8 }, (_, i) => `acc-${i}`);
const GHOSTS = ["acc-ghost-1", "acc-ghost-2"];

/**
 * Opens every account, then a mix of deposits, withdrawals and transfers, some invalid
 * (beyond the balance, unknown or unopened accounts, a second open, a transfer to itself,
 * transfers to accounts that were never opened). Amounts are never in the range where the
 * outcome would depend on whether a transfer's credit has reached its target yet: an
 * accepted withdrawal or transfer fits in the account's own money (deposits minus what left
 * it), a rejected one exceeds all the money that was ever sent to it as well.
 */
export function accountCommands(seed: number, count: number, baseMs: number, stepMs: number): { opens: Command[]; rest: Command[] } {
  const random = rng(seed);
  let at = baseMs;
  let n = 0;
  const next = () => {
    at += int(random, 1, stepMs);
    return { commandId: `cmd-${seed}-${n++}`, at };
  };
  const own = new Map(ACCOUNTS.map((a) => [a, 0])); // a lower bound of the balance at any moment
  const incoming = new Map(ACCOUNTS.map((a) => [a, 0])); // credits and refunds that may or may not have landed
  const opens: Command[] = ACCOUNTS.map((accountId) => ({ ...next(), type: "open", accountId, owner: `owner of ${accountId}` }));
  const rest: Command[] = [];
  while (rest.length < count) {
    const roll = random();
    const accountId = pick(random, ACCOUNTS);
    const valid = random() < 0.7;
    const low = own.get(accountId)!;
    const high = low + incoming.get(accountId)!;
    if (roll < 0.3 || (valid && low < 100 && roll < 0.85)) {
      const amountCents = int(random, 1, 500) * 100;
      rest.push({ ...next(), type: "deposit", accountId, amountCents });
      own.set(accountId, low + amountCents);
    } else if (roll < 0.55) {
      const amountCents = valid ? int(random, 1, low) : high + int(random, 1, 10_000);
      rest.push({ ...next(), type: "withdraw", accountId, amountCents });
      if (valid) own.set(accountId, low - amountCents);
    } else if (roll < 0.85) {
      const toAccountId = random() < 0.1 ? pick(random, GHOSTS) : pick(random, ACCOUNTS.filter((a) => a !== accountId));
      const amountCents = valid ? int(random, 1, low) : high + int(random, 1, 10_000);
      rest.push({ ...next(), type: "transfer", accountId, toAccountId, amountCents });
      if (valid) {
        own.set(accountId, low - amountCents);
        const back = GHOSTS.includes(toAccountId) ? accountId : toAccountId; // a refund comes back to the source
        incoming.set(back, incoming.get(back)! + amountCents);
      }
    } else if (roll < 0.9) {
      rest.push({ ...next(), type: "open", accountId, owner: "again" });
    } else if (roll < 0.95) {
      rest.push({ ...next(), type: "deposit", accountId: pick(random, GHOSTS), amountCents: 100 });
    } else {
      rest.push({ ...next(), type: "transfer", accountId, toAccountId: accountId, amountCents: 100 });
    }
  }
  return { opens, rest };
}

export interface ExpectedLedger {
  events: AccountEvent[];
  replies: Reply[];
  balances: Map<string, number>;
  rejected: { withdrawals: number; transfers: number };
  refunds: number;
}

/** The ledger of a bank that applies each command whole, in order, against exact balances. */
export function expectedLedger(commands: readonly Command[]): ExpectedLedger {
  const balances = new Map<string, number>();
  const result: ExpectedLedger = { events: [], replies: [], balances, rejected: { withdrawals: 0, transfers: 0 }, refunds: 0 };
  const event = (c: Command, type: AccountEvent["type"], accountId: string, amountCents: number, counterparty?: string, owner?: string) =>
    result.events.push({
      eventId: `${c.commandId}:${type}`,
      commandId: c.commandId,
      type,
      accountId,
      amountCents,
      ...(counterparty !== undefined ? { counterparty } : {}),
      ...(owner !== undefined ? { owner } : {}),
      at: c.at,
    });
  const reject = (c: Command) => {
    result.replies.push({ commandId: c.commandId, accountId: c.accountId, status: "rejected" });
    if (c.type === "withdraw") result.rejected.withdrawals++;
    if (c.type === "transfer") result.rejected.transfers++;
  };
  for (const c of commands) {
    const balance = balances.get(c.accountId);
    if (c.type === "open") {
      if (balance !== undefined) reject(c);
      else {
        balances.set(c.accountId, 0);
        event(c, "opened", c.accountId, 0, undefined, c.owner);
        result.replies.push({ commandId: c.commandId, accountId: c.accountId, status: "accepted" });
      }
      continue;
    }
    if (balance === undefined || (c.type !== "deposit" && c.amountCents > balance) || (c.type === "transfer" && c.toAccountId === c.accountId)) {
      reject(c);
      continue;
    }
    if (c.type !== "transfer") {
      const sign = c.type === "deposit" ? 1 : -1;
      balances.set(c.accountId, balance + sign * c.amountCents);
      event(c, c.type === "deposit" ? "deposited" : "withdrawn", c.accountId, c.amountCents);
      result.replies.push({ commandId: c.commandId, accountId: c.accountId, status: "accepted" });
      continue;
    }
    balances.set(c.accountId, balance - c.amountCents);
    event(c, "transfer-debited", c.accountId, c.amountCents, c.toAccountId);
    result.replies.push({ commandId: c.commandId, accountId: c.accountId, status: "accepted" });
    const target = balances.get(c.toAccountId);
    if (target === undefined) {
      event(c, "transfer-refunded", c.accountId, c.amountCents, c.toAccountId);
      balances.set(c.accountId, balances.get(c.accountId)! + c.amountCents);
      result.replies.push({ commandId: c.commandId, accountId: c.accountId, status: "refunded" });
      result.refunds++;
    } else {
      event(c, "transfer-credited", c.toAccountId, c.amountCents, c.accountId);
      balances.set(c.toAccountId, target + c.amountCents);
      result.replies.push({ commandId: c.commandId, accountId: c.accountId, status: "completed" });
    }
  }
  return result;
}

/** Monthly statements by brute force: every event of an account bucketed by its UTC month, balances carried over. */
export function expectedStatements(events: readonly AccountEvent[]): Map<string, { month: string; openingCents: number; inCents: number; outCents: number; closingCents: number; events: number }[]> {
  const byAccount = new Map<string, AccountEvent[]>();
  for (const e of events) byAccount.set(e.accountId, [...(byAccount.get(e.accountId) ?? []), e]);
  const result = new Map<string, { month: string; openingCents: number; inCents: number; outCents: number; closingCents: number; events: number }[]>();
  for (const [account, list] of byAccount) {
    const months = [...new Set(list.map((e) => new Date(e.at).toISOString().slice(0, 7)))].sort();
    let opening = 0;
    result.set(
      account,
      months.map((month) => {
        const mine = list.filter((e) => new Date(e.at).toISOString().slice(0, 7) === month);
        const sum = (types: string[]) => mine.filter((e) => types.includes(e.type)).reduce((s, e) => s + e.amountCents, 0);
        const inCents = sum(["deposited", "transfer-credited", "transfer-refunded"]);
        const outCents = sum(["withdrawn", "transfer-debited"]);
        const statement = { month, openingCents: opening, inCents, outCents, closingCents: opening + inCents - outCents, events: mine.length };
        opening = statement.closingCents;
        return statement;
      }),
    );
  }
  return result;
}

import { afterEach, describe, expect, it } from "vitest";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";
import { ACCOUNT_STATE_STORE } from "../../../services/accounts/command-handler.ts";
import { defaultAccountsTopics, type AccountEvent, type AccountState, type Balance, type Command, type Reply } from "../../../services/accounts/model.ts";
import { STATEMENTS_STORE, statementsTopology, type Statements } from "../../../services/accounts/statements.ts";
import { accountsTopology, BALANCES_STORE } from "../../../services/accounts/topology.ts";
import { accountCommands, expectedLedger, expectedStatements } from "./accounts-oracle.ts";

const drivers: TopologyTestDriver[] = [];
afterEach(() => {
  for (const d of drivers.splice(0)) d.close();
});

const topics = defaultAccountsTopics();
const HOUR = 3_600_000;
const BASE = Date.UTC(2026, 0, 20);

function runLedger(commands: readonly Command[]) {
  const driver = new TopologyTestDriver(accountsTopology(topics));
  drivers.push(driver);
  const input = driver.createInputTopic(topics.commands, Serdes.string(), Serdes.json<Command>());
  for (const c of commands) input.pipeInput(c.accountId, c, c.at);
  const events = driver.createOutputTopic(topics.events, Serdes.string(), Serdes.json<AccountEvent>()).readKeyValuesToList();
  const replies = driver.createOutputTopic(topics.replies, Serdes.string(), Serdes.json<Reply>()).readKeyValuesToList();
  for (const [key, e] of events) expect(key).toBe(e!.accountId); // the log is keyed by the account each event changes
  for (const [key, r] of replies) expect(key).toBe(r!.commandId);
  return { driver, events: events.map(([, e]) => e!), replies: replies.map(([, r]) => r!) };
}

describe("the accounts service's topology", { timeout: 60_000 }, () => {
  it.each([1, 2, 3])("writes exactly the events and replies of a brute-force ledger, and folds balances from the log (seed %i)", (seed) => {
    const { opens, rest } = accountCommands(seed, 500, BASE, 6 * HOUR);
    const commands = [...opens, ...rest];
    const expected = expectedLedger(commands);
    expect(expected.rejected.withdrawals).toBeGreaterThan(5);
    expect(expected.rejected.transfers).toBeGreaterThan(5);
    expect(expected.refunds).toBeGreaterThan(0);

    const { driver, events, replies } = runLedger(commands);
    expect(events).toEqual(expected.events);
    expect(replies.map((r) => [r.commandId, r.status])).toEqual(expected.replies.map((r) => [r.commandId, r.status]));
    for (const r of replies.filter((x) => x.status === "rejected")) expect(r.reason).toBeTruthy();

    // a rejected command never reaches the log; an accepted transfer is exactly two events
    const rejected = new Set(replies.filter((r) => r.status === "rejected").map((r) => r.commandId));
    expect(events.filter((e) => rejected.has(e.commandId))).toEqual([]);
    for (const c of commands.filter((x) => x.type === "transfer" && !rejected.has(x.commandId))) {
      const pair = events.filter((e) => e.commandId === c.commandId).map((e) => e.type);
      expect([["transfer-debited", "transfer-credited"], ["transfer-debited", "transfer-refunded"]]).toContainEqual(pair);
    }

    // balances derived from the log, and the command side's state, both equal the ledger's
    const balances = new Map(driver.getKeyValueStore<string, Balance>(BALANCES_STORE).all().map((e) => [e.key, e.value.balanceCents] as const));
    expect(balances).toEqual(expected.balances);
    const state = new Map(driver.getKeyValueStore<string, AccountState>(ACCOUNT_STATE_STORE).all().map((e) => [e.key, e.value.balanceCents] as const));
    expect(state).toEqual(expected.balances);
    // money is only created by deposits and destroyed by withdrawals
    const sum = (type: string) => events.filter((e) => e.type === type).reduce((s, e) => s + e.amountCents, 0);
    expect([...balances.values()].reduce((s, b) => s + b, 0)).toBe(sum("deposited") - sum("withdrawn"));
  });

  it("rejects a withdrawal beyond the balance with a reply naming it, and writes nothing", () => {
    const at = BASE;
    const { events, replies } = runLedger([
      { commandId: "o", type: "open", accountId: "a", owner: "Ann", at },
      { commandId: "d", type: "deposit", accountId: "a", amountCents: 5_000, at: at + 1 },
      { commandId: "w", type: "withdraw", accountId: "a", amountCents: 5_001, at: at + 2 },
    ]);
    expect(events.map((e) => e.commandId)).toEqual(["o", "d"]);
    expect(replies.at(-1)).toEqual({ commandId: "w", accountId: "a", status: "rejected", reason: "insufficient funds: balance 5000 cents, withdraw of 5001", balanceCents: 5_000 });
  });

  it("derives monthly statements from the event log alone, equal to the brute-force statements", () => {
    const { opens, rest } = accountCommands(4, 500, BASE, 6 * HOUR);
    const { events } = runLedger([...opens, ...rest]);
    const expected = expectedStatements(events);
    expect(Math.max(...[...expected.values()].map((m) => m.length))).toBeGreaterThan(2);

    const driver = new TopologyTestDriver(statementsTopology({ events: topics.events, statements: "account-statements" }), { applicationId: "statements" });
    drivers.push(driver);
    const input = driver.createInputTopic(topics.events, Serdes.string(), Serdes.json<AccountEvent>());
    for (const e of events) input.pipeInput(e.accountId, e, e.at);
    const statements = driver.getKeyValueStore<string, Statements>(STATEMENTS_STORE).all();
    expect(new Map(statements.map((s) => [s.key, s.value.months] as const))).toEqual(expected);
    for (const s of statements) expect(s.value.balanceCents).toBe(s.value.months.at(-1)!.closingCents);
  });
});

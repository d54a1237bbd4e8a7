import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { TestKafka } from "../../../lib/testing/index.ts";
import type { AccountEvent, Balance, Command, Reply } from "../../../services/accounts/model.ts";
import { STATEMENTS_STORE, statementsTopology, type Statements } from "../../../services/accounts/statements.ts";
import { accountsTopology, BALANCES_STORE } from "../../../services/accounts/topology.ts";
import { ACCOUNTS, accountCommands, expectedLedger, expectedStatements } from "../../unit/services/accounts-oracle.ts";
import { bootstrap, uniqueName, waitFor } from "../support.ts";

const MIN = 60_000;

describe("the accounts service on the real broker", () => {
  let kafka: TestKafka;
  beforeAll(() => {
    kafka = new TestKafka(bootstrap());
  });
  afterAll(() => kafka.close());

  it("keeps the ledger under exactly-once across partitions, then a new application derives the statements from the whole log", async () => {
    const topics = { commands: uniqueName("account-commands"), events: uniqueName("account-events"), replies: uniqueName("account-replies") };
    const statementsTopic = uniqueName("account-statements");
    // An event log is kept forever; so are the others here, whose records carry last year's times.
    const forever = { "retention.ms": "-1" };
    await kafka.createTopics([
      { name: topics.commands, partitions: 3, configs: forever },
      { name: topics.events, partitions: 3, configs: forever },
      { name: topics.replies, partitions: 1, configs: forever },
      { name: statementsTopic, partitions: 1, configs: forever },
    ]);
    // About five days from 2025-10-29: the statements cross a month end.
    const { opens, rest } = accountCommands(9, 300, Date.UTC(2025, 9, 29), 45 * MIN);
    const expected = expectedLedger([...opens, ...rest]);
    const months = expectedStatements(expected.events);
    expect(expected.refunds).toBeGreaterThan(0);
    expect(expected.rejected.withdrawals + expected.rejected.transfers).toBeGreaterThan(0);
    const app = (topology: ReturnType<typeof accountsTopology>, prefix: string) =>
      new StreamsApp(topology, {
        applicationId: uniqueName(prefix),
        bootstrapServers: bootstrap(),
        stateDir: mkdtempSync(join(tmpdir(), `sluice-${prefix}-`)),
        processingGuarantee: "exactly_once",
        commitIntervalMs: 200,
        logger: silentLogger,
      });
    const produce = (commands: Command[]) => kafka.produce(topics.commands, commands.map((c) => ({ key: c.accountId, value: JSON.stringify(c), timestamp: c.at })));

    const ledger = app(accountsTopology(topics), "accounts");
    try {
      await ledger.start({ handleSignals: false });
      // Accounts open first: a credit must not race its target's opening across partitions.
      await produce(opens);
      await waitFor("every account open", () => {
        try {
          return ACCOUNTS.every((a) => ledger.store<string, Balance>(BALANCES_STORE).get(a) !== null);
        } catch {
          return false;
        }
      }, 60_000);
      await produce(rest);
      await kafka.read(topics.replies, { count: expected.replies.length, timeoutMs: 90_000 });
      await waitFor("the balances folded from the log", () => [...expected.balances].every(([a, cents]) => ledger.store<string, Balance>(BALANCES_STORE).get(a)?.balanceCents === cents), 60_000).catch(() => false);

      const byId = (a: AccountEvent, b: AccountEvent) => (a.eventId < b.eventId ? -1 : 1);
      const records = await kafka.read(topics.events);
      const events = records.map((r) => JSON.parse(r.value!.toString()) as AccountEvent);
      const partitionOf = new Map(records.map((r, i) => [events[i]!.eventId, r.partition] as const));
      const crossing = events.filter((e) => e.type === "transfer-credited" && partitionOf.get(`${e.commandId}:transfer-debited`) !== partitionOf.get(e.eventId));
      expect(crossing.length, "transfers whose two accounts live on different partitions").toBeGreaterThan(10);
      expect(events.sort(byId)).toEqual([...expected.events].sort(byId)); // each event once, none from a rejected command
      const replies = (await kafka.read(topics.replies)).map((r) => JSON.parse(r.value!.toString()) as Reply);
      const status = (list: Reply[]) => list.map((r) => `${r.commandId} ${r.status}`).sort();
      expect(status(replies)).toEqual(status(expected.replies)); // each reply once
      expect(new Map(ACCOUNTS.map((a) => [a, ledger.store<string, Balance>(BALANCES_STORE).get(a)?.balanceCents] as const))).toEqual(expected.balances);
    } finally {
      await ledger.close();
    }

    // Kappa: a read model that did not exist while the events were written, derived from the log.
    const statements = app(statementsTopology({ events: topics.events, statements: statementsTopic }), "account-statements");
    try {
      await statements.start({ handleSignals: false });
      const derived = () => {
        try {
          return new Map(ACCOUNTS.map((a) => [a, statements.store<string, Statements>(STATEMENTS_STORE).get(a)?.months] as const));
        } catch {
          return new Map();
        }
      };
      await waitFor("the statements of every account", () => JSON.stringify([...derived()]) === JSON.stringify([...months].filter(([a]) => ACCOUNTS.includes(a))), 60_000).catch(() => false);
      expect(derived()).toEqual(new Map([...months].filter(([a]) => ACCOUNTS.includes(a))));
      expect([...new Set([...months.values()].flat().map((m) => m.month))].sort()).toEqual(["2025-10", "2025-11"]);
    } finally {
      await statements.close();
    }
  });
});

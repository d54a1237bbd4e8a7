/**
 * Static membership (groupInstanceId, KIP-345) on the real broker, with each instance in its
 * own process, as Kafka Streams' streams_static_membership_test runs it:
 * - a rolling restart of three static members (SIGTERM, then the same instance id and state
 *   directory again, one after another, under continuous input, exactly-once) causes no
 *   rebalance: every join after the group settled reports the same generation, the members
 *   that stayed never rejoin, each restarted member gets its tasks back, and the output,
 *   the running aggregates and the stores are exact by the crash suite's verifier;
 * - a second process with an instance id already in use takes the member's place and the
 *   first stops with a clear fatal error naming the id (exit code 1);
 * - a member without an instance id leaves the group when it closes (the broker drops it at
 *   once, the other member takes its tasks), while a closed static member stays listed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { KafkaAdmin } from "../../../lib/kafka/index.ts";
import { fencedInstanceMessage } from "../../../lib/kafka/static-membership.ts";
import { InputGenerator } from "../../chaos/support/generator.ts";
import { verify } from "../../chaos/support/verifier.ts";
import { bootstrap, testClient, uniqueName, waitFor } from "../support.ts";
import { MemberProcess } from "./member-process.ts";

// Far longer than a restart takes here: a member that did not leave stays listed meanwhile.
const SESSION_TIMEOUT_MS = 60_000;
const stateRoot = mkdtempSync(join(tmpdir(), "sluice-static-"));
const processes: MemberProcess[] = [];
let admin: KafkaAdmin;

beforeAll(async () => {
  admin = testClient().admin();
  await admin.connect();
});
afterEach(async () => {
  await Promise.all(processes.splice(0).map((p) => p.kill()));
});
afterAll(async () => {
  await admin.disconnect();
  rmSync(stateRoot, { recursive: true, force: true });
});

interface App {
  id: string;
  input: string;
  output: string;
  aggregates: string;
}

async function createApp(name: string, partitions: number): Promise<App> {
  const id = uniqueName(name);
  const app = { id, input: `${id}-in`, output: `${id}-out`, aggregates: `${id}-agg` };
  await admin.createTopics([app.input, app.output, app.aggregates].map((topic) => ({ name: topic, partitions })));
  return app;
}

function startMember(app: App, name: string, groupInstanceId: string | null): MemberProcess {
  const member = new MemberProcess(name, {
    KAFKA_BOOTSTRAP_SERVERS: bootstrap(), APP_ID: app.id, INPUT: app.input, OUTPUT: app.output, AGG_OUTPUT: app.aggregates,
    STATE_DIR: join(stateRoot, app.id, name), SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
    ...(groupInstanceId ? { GROUP_INSTANCE_ID: groupInstanceId } : {}),
  });
  processes.push(member);
  return member;
}

const allTasks = (partitions: number) => Array.from({ length: partitions }, (_, p) => `0_${p}`);

/** Until every member runs and together they hold every task once. */
async function settled(members: MemberProcess[], partitions: number, what: string): Promise<void> {
  await waitFor(what, () => {
    const crashed = members.find((m) => !m.alive);
    if (crashed) throw new Error(`member ${crashed.name} exited with ${crashed.exitCode}:\n${crashed.log()}`);
    const tasks = members.flatMap((m) => m.tasks).sort();
    return members.every((m) => m.running) && JSON.stringify(tasks) === JSON.stringify(allTasks(partitions).sort());
  }, 120_000);
}

const memberIds = async (groupId: string) => (await admin.describeGroup(groupId)).members.map((m) => m.memberId);

describe("static membership (groupInstanceId)", () => {
  it("a rolling restart of three static members within the session timeout causes no rebalance and stays exactly-once", async () => {
    const partitions = 6;
    const app = await createApp("static-rolling", partitions);
    const generator = new InputGenerator({ bootstrap: bootstrap(), topic: app.input, keys: 30, rate: 100 });
    await generator.connect();
    generator.start();
    try {
      const names = ["a", "b", "c"];
      const instanceId = (name: string) => `${app.id}-${name}`;
      const members = new Map(names.map((name) => [name, startMember(app, name, instanceId(name))]));
      await settled([...members.values()], partitions, "three static members running");
      // The last joins of the three report the settled generation.
      const generation = await waitFor("the three members' joins of one generation", () => {
        const last = [...members.values()].map((m) => m.joins.at(-1)?.generationId);
        return last.every((g) => g !== undefined && g === last[0]) ? last[0]! : null;
      });
      const firstRuns = [...members.values()];
      const joinsAtSettling = firstRuns.map((m) => m.joins.length);
      // The broker names a static member after its instance id: it received group.instance.id.
      const listed = await memberIds(app.id);
      expect(listed.map((id) => names.find((n) => id.startsWith(`${instanceId(n)}-`))).sort()).toEqual(names);

      const restarted = new Map<string, MemberProcess>();
      for (const name of names) {
        const before = members.get(name)!;
        const tasks = [...before.tasks];
        const memberId = before.joins.at(-1)!.memberId;
        expect(await before.terminate(), `exit code of ${name} after SIGTERM`).toBe(0);
        // No LeaveGroup: the broker keeps the closed member and its assignment.
        expect(await memberIds(app.id)).toContain(memberId);
        const after = startMember(app, name, instanceId(name));
        members.set(name, after);
        restarted.set(name, after);
        await settled([...members.values()], partitions, `${name} running again`);
        expect(after.tasks, `tasks of ${name} after its restart`).toEqual(tasks);
        expect(after.joins.map((j) => j.generationId), `joins of the restarted ${name}`).toEqual([generation]);
      }
      // A rebalance would have made the members rejoin with a new generation.
      for (const [name, m] of members) expect(m.joins.map((j) => j.generationId), `joins of ${name}`).toEqual([generation]);
      expect(firstRuns.map((m) => m.joins.length), "joins of the first processes until they stopped").toEqual(joinsAtSettling);
      expect((await memberIds(app.id)).sort()).toEqual([...restarted.values()].map((m) => m.joins[0]!.memberId).sort());

      await generator.stop();
      await waitFor("committed offsets at the input's end", async () => {
        const [ends, committed] = await Promise.all([admin.offsets(app.input), admin.committedOffsets(app.id, [app.input])]);
        const at = new Map(committed.map((c) => [c.partition, c.offset]));
        return ends.every((e) => e.latest === e.earliest || at.get(e.partition) === e.latest);
      }, 120_000);
      const stopping = [...members.values()];
      expect(await Promise.all(stopping.map((m) => m.terminate()))).toEqual([0, 0, 0]);
      const verdict = await verify({
        bootstrap: bootstrap(), applicationId: app.id, input: app.input, output: app.output, guarantee: "exactly_once",
        aggregateOutput: app.aggregates, storeDumps: stopping.map((m) => m.storeDump),
      });
      expect(verdict.recordsIn).toBeGreaterThan(0);
      expect(verdict.openTransactions).toEqual([]);
      expect(verdict.offsetMismatches).toEqual([]);
      expect({ duplicates: verdict.duplicates, losses: verdict.losses, phantoms: verdict.phantoms }).toEqual({ duplicates: 0, losses: 0, phantoms: 0 });
      expect(verdict.misordered).toEqual([]);
      expect(verdict.recordsOut).toBe(verdict.recordsIn);
      expect(verdict.aggregate!.firstMismatch).toBeNull();
      expect(verdict.aggregate!.storeProblems).toEqual([]);
      // Closed static members stay in the group until their session times out.
      expect(verdict.groupMembers).toBe(3);
    } finally {
      await generator.close();
    }
  }, 400_000);

  it("a second process with the same groupInstanceId takes the place; the first stops with a fatal error naming the id", async () => {
    const app = await createApp("static-fenced", 2);
    const id = `${app.id}-0`;
    const first = startMember(app, "first", id);
    await settled([first], 2, "the first process running");
    const second = startMember(app, "second", id);
    expect(await first.exited, `exit code of the fenced process:\n${first.log()}`).toBe(1);
    expect(first.errorsContaining(fencedInstanceMessage(app.id, id)).length, first.log()).toBeGreaterThan(0);
    await settled([second], 2, "the second process running with every task");
    expect(second.joins.at(-1)?.groupInstanceId).toBe(id);
    expect(await second.terminate()).toBe(0);
  }, 300_000);

  it("a member without groupInstanceId leaves the group on close; a closed static member stays listed", async () => {
    const partitions = 4;
    const app = await createApp("dynamic-leave", partitions);
    const a = startMember(app, "a", null);
    const b = startMember(app, "b", null);
    await settled([a, b], partitions, "two dynamic members running");
    const generation = a.joins.at(-1)!.generationId;
    const leaving = b.joins.at(-1)!.memberId;
    expect(leaving.startsWith(`${app.id}-`), "a dynamic member is named after its client id").toBe(true);
    expect(await b.terminate()).toBe(0);
    // Gone as soon as its process is: it sent LeaveGroup (a silent member stays for the session timeout).
    expect(await memberIds(app.id)).not.toContain(leaving);
    await settled([a], partitions, "the other member holding every task");
    expect(a.joins.at(-1)!.generationId).toBeGreaterThan(generation);

    // The same close as a static member: still listed after its process is gone.
    const c = startMember(app, "c", `${app.id}-c`);
    await waitFor("the static member's join", () => c.joins.length > 0 && c.running, 120_000);
    const staticId = c.joins.at(-1)!.memberId;
    expect(await c.terminate()).toBe(0);
    expect(await memberIds(app.id)).toContain(staticId);
    expect(await a.terminate()).toBe(0);
  }, 300_000);
});

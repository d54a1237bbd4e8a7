import { afterEach, describe, expect, it } from "vitest";
import type { Assignor, KafkaClient, TopicPartition } from "../../lib/kafka/index.ts";
import { adapters, clientFor, createTopic, Member, text, uniqueName, waitFor } from "./support.ts";

/**
 * An assignor like the engine's in shape: each member says in its user data which
 * partitions it wants; the leader gives each its wish and the rest to the first member.
 * Every member ending up with what it asked for proves user data reached the leader and
 * the leader's plan reached the members. The plan is computed asynchronously (the engine's
 * reads end offsets first) and gives each member bytes of its own: the member id it was
 * planned for and the generation of the plan, counted per assignor.
 */
function wishAssignor(wanted: number[]): Assignor & { plans: number } {
  return {
    name: "conformance-wishes",
    userData: () => Buffer.from(JSON.stringify(wanted)),
    plans: 0,
    async assign(members, partitionCounts) {
      await new Promise((resolve) => setImmediate(resolve));
      const round = ++this.plans;
      const plan = new Map<string, TopicPartition[]>(members.map((m) => [m.memberId, []]));
      const sorted = [...members].sort((a, b) => a.memberId.localeCompare(b.memberId));
      for (const [topic, count] of partitionCounts) {
        for (let partition = 0; partition < count; partition++) {
          const wisher = sorted.find((m) => (JSON.parse(m.userData.toString() || "[]") as number[]).includes(partition)) ?? sorted[0]!;
          plan.get(wisher.memberId)!.push({ topic, partition });
        }
      }
      return new Map([...plan].map(([memberId, partitions]) => [memberId, { partitions, userData: Buffer.from(`${memberId}#${round}`) }]));
    },
  };
}

describe.each(adapters)("the %s adapter's group membership", (name) => {
  const started: Member[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((m) => m.stop().catch(() => undefined)));
  });
  const start = async (member: Member, topic: string) => {
    started.push(member);
    return member.start([topic]);
  };

  it("runs the application's assignor on the members' user data and hands over when a member leaves", async () => {
    const client = clientFor(name);
    const topic = await createTopic(client, 3, "group");
    const groupId = uniqueName("handover");
    const first = await start(new Member(client, { groupId, readCommitted: false, assignor: wishAssignor([0]) }), topic);
    await waitFor("the first member owns everything", () => first.owns().length === 3);
    // A sole member runs the assignor too, and receives its bytes.
    const admin = client.admin();
    await admin.connect();
    const [alone] = (await admin.describeGroup(groupId)).members;
    expect(first.assignmentUserData.split("#")[0]).toBe(alone!.memberId);
    const second = await start(new Member(client, { groupId, readCommitted: false, assignor: wishAssignor([1, 2]) }), topic);
    await waitFor("the wishes are granted", () => first.owns().join() === `${topic}:0` && second.owns().join() === `${topic}:1,${topic}:2`);
    const members = (await admin.describeGroup(groupId)).members.map((m) => m.memberId).sort();
    expect(members).toHaveLength(2);
    // Each member got the bytes planned for it alone.
    const planned = [first, second].map((m) => m.assignmentUserData.split("#")[0]);
    expect([...planned].sort()).toEqual(members);

    // Records produced now reach the member that owns their partition.
    const producer = client.producer();
    await producer.connect();
    await producer.send([0, 1, 2].map((partition) => ({ topic, partition, key: text(`k${partition}`), value: text(`v${partition}`) })));
    await producer.disconnect();
    await waitFor("each member reads its partitions", () => first.records.length === 1 && second.records.length === 2);
    expect(first.records.map((r) => r.partition)).toEqual([0]);

    // A requested rejoin (of both, so the leader's makes a rebalance) brings a new plan.
    const rounds = () => [first, second].map((m) => Number(m.assignmentUserData.split("#")[1]));
    const [firstRound, secondRound] = rounds();
    first.consumer.rejoin();
    second.consumer.rejoin();
    await waitFor("a new plan after the requested rejoin", () => rounds()[0]! > firstRound! && rounds()[1]! > secondRound!);
    expect(first.owns().join()).toBe(`${topic}:0`);

    await first.stop();
    started.splice(started.indexOf(first), 1);
    await waitFor("the second member takes over", () => second.owns().length === 3);
    expect((await admin.describeGroup(groupId)).members).toHaveLength(1);
    await admin.disconnect();
  });
});

// The revocation hook, for the adapters that claim it: the member about to rejoin commits
// in its beforeRejoin handler, and the coordinator takes it (the old generation holds).
describe.each(adapters.filter((name) => clientFor(name).capabilities.revocationHook))("the %s adapter's revocation hook", (name) => {
  it("lets a member commit before it rejoins for a rebalance another member causes", async () => {
    const client = clientFor(name);
    const topic = await createTopic(client, 2, "group");
    const groupId = uniqueName("hook");
    const first = await new Member(client, { groupId, readCommitted: false }).start([topic]);
    const commits: Promise<void>[] = [];
    first.onBeforeRejoin = async () => {
      const commit = first.consumer.commit([{ topic, partition: 0, offset: 1, metadata: "before rejoin" }]);
      commits.push(commit);
      await commit;
    };
    const second = await new Member(client, { groupId, readCommitted: false }).start([topic]);
    try {
      await waitFor("both members own a partition", () => first.owns().length === 1 && second.owns().length === 1);
      expect(first.rejoinHooks).toBeGreaterThanOrEqual(1);
      expect(commits.length).toBe(first.rejoinHooks);
      await Promise.all(commits);
      const admin = client.admin();
      await admin.connect();
      expect(await admin.committedOffsets(groupId, [topic])).toEqual([{ topic, partition: 0, offset: 1, metadata: "before rejoin" }]);
      await admin.disconnect();
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });
});

// Static membership (KIP-345), for the adapters that claim it: a member that goes away
// without leaving and comes back with its group.instance.id within the session timeout
// takes its partitions back, and the others never rebalance.
describe.each(adapters.filter((name) => clientFor(name).capabilities.staticMembership))("the %s adapter's static membership", (name) => {
  it("gives a returning static member its partitions back without a rebalance", async () => {
    const client = clientFor(name);
    const topic = await createTopic(client, 2, "group");
    const groupId = uniqueName("static");
    const options = (instance: string, wanted: number[]) => ({ groupId, readCommitted: false, groupInstanceId: instance, assignor: wishAssignor(wanted), sessionTimeoutMs: 30_000 });
    const leader = await new Member(client, options(`${groupId}-leader`, [0])).start([topic]);
    const returning = await new Member(client, options(`${groupId}-returning`, [1])).start([topic]);
    try {
      await waitFor("both own their wish", () => leader.owns().join() === `${topic}:0` && returning.owns().join() === `${topic}:1`);
      const before = { assignments: leader.assignments, rebalances: leader.rebalances };
      await returning.stop();
      const back = await new Member(client, options(`${groupId}-returning`, [1])).start([topic]);
      try {
        await waitFor("the returning member has its partition", () => back.owns().join() === `${topic}:1`);
        // A heartbeat or two of the leader, which would have seen a rebalance.
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        expect({ assignments: leader.assignments, rebalances: leader.rebalances }).toEqual(before);
      } finally {
        await back.stop();
      }
    } finally {
      await leader.stop();
    }
  });
});

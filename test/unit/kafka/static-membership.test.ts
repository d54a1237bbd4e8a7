/**
 * Static membership without a broker: the groupInstanceId setting, the requests a static
 * member's coordinator sends (decoded field by field with the client's own decoder, in the
 * layout of Kafka's message schemas), and what a static member keeps and skips.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../lib/errors/index.ts";
import { translateError } from "../../../lib/kafka/index.ts";
import { fencedInstanceMessage, membershipRetryOption, offsetCommitV7, withStaticMembership, type GroupMembership } from "../../../lib/kafka/static-membership.ts";
import { resolveConfig } from "../../../lib/runtime/config.ts";

const require = createRequire(import.meta.url);
type DecoderShape = { readString(): string | null; readInt16(): number; readInt32(): number; readInt64(): { toString(): string }; readBytes(): Buffer; readArray<T>(read: (d: DecoderShape) => T): T[] };
const Decoder = require("kafkajs/src/protocol/decoder.js") as new (buffer: Buffer) => DecoderShape;

const base = { applicationId: "orders", bootstrapServers: "localhost:9092" };

describe("groupInstanceId setting", () => {
  it("is none by default and kept as given", () => {
    expect(resolveConfig(base).groupInstanceId).toBeNull();
    expect(resolveConfig({ ...base, groupInstanceId: "orders-0" }).groupInstanceId).toBe("orders-0");
  });

  it.each([[""], ["orders 0"], ["pod/0"], ["."], [".."], ["x".repeat(250)], [42 as never]])("refuses %j, saying what a valid one is", (id) => {
    const attempt = () => resolveConfig({ ...base, groupInstanceId: id });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/groupInstanceId must be (1-249 letters, digits|a string).*unique to this instance.*pod name/);
  });
});

interface Sent {
  request: { apiKey: number; apiVersion: number; apiName: string; encode(): Promise<{ buffer: Buffer }> };
}

// What the client's ConsumerGroup does with the parts this mixin touches.
class ClientGroup {
  groupId = "orders";
  generationId: number | null = null;
  memberId: string | null = null;
  // Assigned in the constructor, as the client does, not a field: a field would hide the mixin's accessor.
  declare coordinator: unknown;
  left = 0;
  constructor(_options: unknown) {
    this.coordinator = null;
  }
  async joinAndSync(): Promise<void> {
    const broker = this.coordinator as { joinGroup(args: object): Promise<{ memberId: string; generationId: number }> };
    const answer = await broker.joinGroup({ groupId: this.groupId, sessionTimeout: 30_000, rebalanceTimeout: 60_000, memberId: this.memberId ?? "", groupProtocols: [{ name: "sluice", metadata: Buffer.from([1]) }] });
    this.memberId = answer.memberId;
    this.generationId = answer.generationId;
  }
  async leave(): Promise<void> {
    this.left++;
  }
}
const Group = withStaticMembership(ClientGroup);

function fakeBroker(sent: Sent[], answer: (request: Sent["request"]) => unknown = () => ({ memberId: "orders-0-m1", generationId: 7 })) {
  return {
    versions: { 8: { maxVersion: 9 }, 11: { maxVersion: 9 }, 12: { maxVersion: 4 }, 13: { maxVersion: 5 }, 14: { maxVersion: 5 } },
    connectionPool: {
      send: async (protocolRequest: Sent) => {
        sent.push(protocolRequest);
        return answer(protocolRequest.request);
      },
    },
    disconnect: async () => undefined,
  };
}

function membership(groupInstanceId: string | null, joined: [number, string][] = []): GroupMembership {
  return { groupId: "orders", groupInstanceId, memberId: null, onJoined: (generation, memberId) => joined.push([generation, memberId]) };
}

async function decoded(sent: Sent): Promise<DecoderShape> {
  const encoded = await sent.request.encode();
  return new Decoder(encoded.buffer);
}

describe("a static member's group requests", () => {
  it("JoinGroup v5 carries group.instance.id; the member id and generation are reported and kept for the next group object", async () => {
    const sent: Sent[] = [];
    const joined: [number, string][] = [];
    const m = membership("orders-0", joined);
    const group = new Group({ retry: membershipRetryOption(m) });
    group.coordinator = fakeBroker(sent);
    await group.joinAndSync();
    expect(sent.map((s) => [s.request.apiName, s.request.apiVersion])).toEqual([["JoinGroup", 5]]);
    const d = await decoded(sent[0]!);
    expect([d.readString(), d.readInt32(), d.readInt32(), d.readString(), d.readString(), d.readString()]).toEqual(["orders", 30_000, 60_000, "", "orders-0", "consumer"]);
    expect(joined).toEqual([[7, "orders-0-m1"]]);
    // The client rebuilds its group object after a crash: the member id carries over.
    const next = new Group({ retry: membershipRetryOption(m) });
    expect(next.memberId).toBe("orders-0-m1");
    next.coordinator = fakeBroker(sent);
    await next.joinAndSync();
    const again = await decoded(sent[1]!);
    expect([again.readString(), again.readInt32(), again.readInt32(), again.readString(), again.readString()]).toEqual(["orders", 30_000, 60_000, "orders-0-m1", "orders-0"]);
  });

  it("Heartbeat v3, SyncGroup v3 and OffsetCommit v7 carry it too", async () => {
    const sent: Sent[] = [];
    const group = new Group({ retry: membershipRetryOption(membership("orders-0")) });
    const broker = fakeBroker(sent) as unknown as Record<string, (args: object) => Promise<unknown>>;
    group.coordinator = broker;
    await broker["heartbeat"]!({ groupId: "orders", groupGenerationId: 7, memberId: "m1" });
    await broker["syncGroup"]!({ groupId: "orders", generationId: 7, memberId: "m1", groupAssignment: [] });
    await broker["offsetCommit"]!({ groupId: "orders", groupGenerationId: 7, memberId: "m1", topics: [{ topic: "in", partitions: [{ partition: 2, offset: "41", metadata: "m" }] }] });
    expect(sent.map((s) => [s.request.apiKey, s.request.apiName, s.request.apiVersion])).toEqual([[12, "Heartbeat", 3], [14, "SyncGroup", 3], [8, "OffsetCommit", 7]]);
    const heartbeat = await decoded(sent[0]!);
    expect([heartbeat.readString(), heartbeat.readInt32(), heartbeat.readString(), heartbeat.readString()]).toEqual(["orders", 7, "m1", "orders-0"]);
    const sync = await decoded(sent[1]!);
    expect([sync.readString(), sync.readInt32(), sync.readString(), sync.readString()]).toEqual(["orders", 7, "m1", "orders-0"]);
    const commit = await decoded(sent[2]!);
    expect([commit.readString(), commit.readInt32(), commit.readString(), commit.readString()]).toEqual(["orders", 7, "m1", "orders-0"]);
    const topics = commit.readArray((t) => ({
      topic: t.readString(),
      partitions: t.readArray((p) => [p.readInt32(), p.readInt64().toString(), p.readInt32(), p.readString()]),
    }));
    expect(topics).toEqual([{ topic: "in", partitions: [[2, "41", -1, "m"]] }]);
  });

  it("sends no LeaveGroup on close; a dynamic member still leaves and keeps the client's requests", async () => {
    const staticGroup = new Group({ retry: membershipRetryOption(membership("orders-0")) });
    await staticGroup.leave();
    expect((staticGroup as unknown as ClientGroup).left).toBe(0);
    const dynamic = new Group({ retry: membershipRetryOption(membership(null)) });
    const broker = fakeBroker([]);
    dynamic.coordinator = broker;
    expect(Object.hasOwn(broker, "joinGroup")).toBe(false);
    await dynamic.leave();
    expect((dynamic as unknown as ClientGroup).left).toBe(1);
  });

  it("turns FENCED_INSTANCE_ID into a fatal error naming the id and the fix", async () => {
    const { createErrorFromCode } = require("kafkajs/src/protocol/error.js") as { createErrorFromCode(code: number): Error };
    const group = new Group({ retry: membershipRetryOption(membership("orders-0")) });
    group.coordinator = fakeBroker([], () => {
      throw createErrorFromCode(82);
    });
    const error = await group.joinAndSync().then(() => null, (e: unknown) => e as Error & { retriable?: boolean; type?: string });
    expect(error?.type).toBe("FENCED_INSTANCE_ID");
    expect(error?.retriable).toBe(false);
    expect(error?.message).toBe(fencedInstanceMessage("orders", "orders-0"));
    expect(error?.message).toMatch(/groupInstanceId "orders-0" is used by another process.*its own groupInstanceId/);
    expect(translateError(error, "heartbeat").name).toBe("FatalError");
  });

  it("refuses a broker without JoinGroup v5, saying what to do", async () => {
    const group = new Group({ retry: membershipRetryOption(membership("orders-0")) });
    group.coordinator = { ...fakeBroker([]), versions: { 11: { maxVersion: 4 } } };
    await expect(group.joinAndSync()).rejects.toThrow(/does not support static membership: groupInstanceId needs JoinGroup v5 \(Kafka 2.3 or newer\), the broker offers up to v4; upgrade the brokers or remove groupInstanceId/);
  });
});

it("encodes OffsetCommit v7 without an instance id as a null string", async () => {
  const sent = (offsetCommitV7.protocol({ version: 7 })({ groupId: "g", groupGenerationId: 1, memberId: "m", groupInstanceId: null, topics: [] }) as Sent).request;
  const d = new Decoder((await sent.encode()).buffer);
  expect([d.readString(), d.readInt32(), d.readString(), d.readString(), d.readArray(() => 0)]).toEqual(["g", 1, "m", null, []]);
});

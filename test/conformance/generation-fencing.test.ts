/**
 * Offsets fenced by the group generation (KIP-447), for the adapters that claim it: what
 * exactly-once with one transactional producer per stream thread rests on. A zombie's
 * offsets are refused once the group moved past its generation, and a new owner reading
 * stable offsets is not answered while a transaction still holds offsets.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FencedError } from "../../lib/errors/index.ts";
import type { KafkaClient } from "../../lib/kafka/index.ts";
import { adapters, clientFor, consumeToEnd, createTopic, Member, text, uniqueName, waitFor } from "./support.ts";

async function committed(client: KafkaClient, groupId: string, topic: string, requireStable: boolean) {
  const admin = client.admin();
  await admin.connect();
  try {
    return await admin.committedOffsets(groupId, [topic], requireStable);
  } finally {
    await admin.disconnect();
  }
}

const fencing = adapters.filter((name) => clientFor(name).capabilities.fencesOffsetsByGeneration);

describe.each(fencing)("the %s adapter's generation fencing", (name) => {
  const started: Member[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((m) => m.stop().catch(() => undefined)));
  });

  it("refuses transactional offsets of a generation the group moved past, and aborts what came with them", async () => {
    const client = clientFor(name);
    const topic = await createTopic(client, 2, "fencing");
    const output = await createTopic(client, 1, "fencing");
    const groupId = uniqueName("fencing-group");
    // Records to commit offsets within: a member fetching from a committed offset past a
    // partition's end resets it (kafkajs commits the reset), which is not what is tested.
    const input = client.producer({ idempotent: true });
    await input.connect();
    await input.send(Array.from({ length: 6 }, (_, i) => ({ topic, partition: 0, key: text(`k${i}`), value: text(`v${i}`) })));
    await input.disconnect();
    const first = new Member(client, { groupId, readCommitted: true });
    started.push(first);
    await first.start([topic]);
    const joined = first.consumer.groupMetadata();
    expect(joined?.generationId).toBeGreaterThan(0);

    const producer = client.transactionalProducer({ transactionalId: uniqueName("thread"), transactionTimeoutMs: 10_000 });
    await producer.init();
    await producer.begin();
    await producer.send([{ topic: output, partition: 0, key: text("k"), value: text("in generation") }]);
    await producer.sendOffsets(groupId, [{ topic, partition: 0, offset: 1 }], joined);
    await producer.commit();

    const second = new Member(client, { groupId, readCommitted: true });
    started.push(second);
    await second.start([topic]);
    await waitFor("both members own a partition", () => first.owns().length === 1 && second.owns().length === 1);
    expect(first.consumer.groupMetadata()!.generationId).toBeGreaterThan(joined!.generationId);

    // The zombie: the first member's transaction with the generation it had before.
    await producer.begin();
    await producer.send([{ topic: output, partition: 0, key: text("k"), value: text("from the zombie") }]);
    const refusal = await producer.sendOffsets(groupId, [{ topic, partition: 0, offset: 5 }], joined).then(() => null, (error: unknown) => error);
    expect(refusal).toBeInstanceOf(FencedError);
    expect((refusal as FencedError).action).toBe("rejoin");
    await producer.close();

    expect(await committed(client, groupId, topic, true)).toEqual([{ topic, partition: 0, offset: 1 }]);
    // The refused transaction stays open until the coordinator aborts it at its timeout.
    const successor = client.transactionalProducer({ transactionalId: producer.transactionalId, transactionTimeoutMs: 10_000 });
    await successor.init();
    await successor.close();
    expect((await consumeToEnd(client, output, true)).map((r) => r.value!.toString())).toEqual(["in generation"]);
    await client.close();
  });

  it("answers stable offsets only once the transaction holding them has ended", async () => {
    const client = clientFor(name);
    const topic = await createTopic(client, 1, "fencing");
    const groupId = uniqueName("stable-group");
    const producer = client.transactionalProducer({ transactionalId: uniqueName("thread"), transactionTimeoutMs: 10_000 });
    await producer.init();
    await producer.begin();
    await producer.sendOffsets(groupId, [{ topic, partition: 0, offset: 4 }]);

    expect(await committed(client, groupId, topic, false)).toEqual([]);
    // The broker answers UNSTABLE_OFFSET_COMMIT while the offsets are pending; the read
    // waits (retrying) instead of answering with the offsets before them.
    let answered = false;
    const stable = committed(client, groupId, topic, true).finally(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(answered, "a stable read answered while the transaction was open").toBe(false);

    await producer.commit();
    await producer.close();
    expect(await stable).toEqual([{ topic, partition: 0, offset: 4 }]);
    await client.close();
  });
});

import { describe, expect, it } from "vitest";
import { FatalError, FencedError } from "../../../lib/errors/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { CommitTransaction } from "../../../lib/runtime/eos/commit-transaction.ts";
import { taskTransactionalId } from "../../../lib/runtime/eos/task-producers.ts";
import { ThreadProducerCommitter } from "../../../lib/runtime/eos/thread-producer.ts";
import type { EngineTask } from "../../../lib/runtime/engine-task.ts";
import { OutputBuffer } from "../../../lib/runtime/output-buffer.ts";
import type { TopicPartitionOffset } from "../../../lib/kafka/index.ts";
import { readTopic, testClient, uniqueName, waitFor } from "../support.ts";

describe("a task's transaction", () => {
  it("commits output and offsets together, and a new owner fences the old one", async () => {
    const client = testClient();
    const admin = client.admin();
    await admin.connect();
    const topic = uniqueName("eos-out");
    const input = uniqueName("eos-in");
    const applicationId = uniqueName("app");
    await admin.createTopics([{ name: topic, partitions: 1 }, { name: input, partitions: 1 }]);

    const options = { transactionalId: taskTransactionalId(applicationId, "0_0"), owner: "task 0_0", logFields: { taskId: "0_0" }, transactionTimeoutMs: 10_000, logger: silentLogger };
    const zombie = new CommitTransaction(client, options);
    await zombie.init();
    await zombie.commit(applicationId, [{ topic, partition: 0, key: null, value: Buffer.from("first") }], [{ topic: input, partition: 0, offset: 1 }]);

    const owner = new CommitTransaction(client, options);
    await owner.init();
    await expect(
      zombie.commit(applicationId, [{ topic, partition: 0, key: null, value: Buffer.from("zombie") }], [{ topic: input, partition: 0, offset: 2 }]),
    ).rejects.toBeInstanceOf(FencedError);
    await owner.commit(applicationId, [{ topic, partition: 0, key: null, value: Buffer.from("second") }], [{ topic: input, partition: 0, offset: 5 }]);
    await owner.close();

    const values = (await readTopic(topic, { readCommitted: true })).map((r) => r.value?.toString());
    expect(values).toEqual(["first", "second"]);
    const committed = await waitFor("offset 5 committed", async () => {
      const offsets = await admin.committedOffsets(applicationId, [input]);
      return offsets[0]?.offset === 5 ? offsets : null;
    });
    expect(committed).toEqual([{ topic: input, partition: 0, offset: 5 }]);
    await admin.disconnect();
  });
});

describe("output sent into the open transaction before its commit", () => {
  it("commits with the transaction, and leaves nothing behind when the transaction is abandoned", async () => {
    const client = testClient();
    const admin = client.admin();
    await admin.connect();
    const topic = uniqueName("eos-early-out");
    const input = uniqueName("eos-early-in");
    const applicationId = uniqueName("app");
    await admin.createTopics([{ name: topic, partitions: 1 }, { name: input, partitions: 1 }]);
    const record = (value: string) => ({ topic, partition: 0, key: null, value: Buffer.from(value) });
    const transaction = new CommitTransaction(client, { transactionalId: `${applicationId}-thread`, owner: "thread 1", logFields: {}, transactionTimeoutMs: 10_000, logger: silentLogger });
    try {
      await transaction.init();
      expect(transaction.holdsOutput).toBe(false);
      const sent = await transaction.send([record("early")]);
      expect(transaction.holdsOutput).toBe(true);
      expect(sent.get(`${topic}:0`)).toBe(0);
      // Sent but not committed: a read_committed reader sees nothing yet, an uncommitted one sees it.
      expect((await readTopic(topic, { readCommitted: false, count: 1 })).map((r) => r.value?.toString())).toEqual(["early"]);
      await expect(readTopic(topic, { readCommitted: true, count: 1, timeoutMs: 1_500 })).rejects.toThrow(/timed out after 1500 ms with 0 records/);
      await transaction.commit(applicationId, [record("at commit")], [{ topic: input, partition: 0, offset: 1 }]);
      expect(transaction.holdsOutput).toBe(false);

      await transaction.send([record("abandoned")]);
      await transaction.abandon();
      expect(transaction.holdsOutput).toBe(false);
      await transaction.commit(applicationId, [record("after")], [{ topic: input, partition: 0, offset: 2 }]);

      const committed = (await readTopic(topic, { readCommitted: true, count: 3 })).map((r) => r.value?.toString());
      expect(committed).toEqual(["early", "at commit", "after"]);
      const everything = (await readTopic(topic, { readCommitted: false, count: 4 })).map((r) => r.value?.toString());
      expect(everything).toEqual(["early", "at commit", "abandoned", "after"]);
      expect(await admin.committedOffsets(applicationId, [input], true)).toEqual([{ topic: input, partition: 0, offset: 2 }]);
    } finally {
      await transaction.close();
      await admin.disconnect();
    }
  });

  it("is not retried after a failure: the commit fails, so its tasks rewind", async () => {
    const client = testClient();
    const topic = uniqueName("eos-early-fenced");
    const admin = client.admin();
    await admin.connect();
    await admin.createTopics([{ name: topic, partitions: 1 }]);
    const applicationId = uniqueName("app");
    const options = { transactionalId: `${applicationId}-thread`, owner: "thread 1", logFields: {}, transactionTimeoutMs: 10_000, logger: silentLogger };
    const zombie = new CommitTransaction(client, options);
    const owner = new CommitTransaction(client, options);
    try {
      await zombie.init();
      await zombie.send([{ topic, partition: 0, key: null, value: Buffer.from("zombie") }]);
      await owner.init(); // fences the zombie and aborts its open transaction
      await expect(zombie.commit(applicationId, [{ topic, partition: 0, key: null, value: Buffer.from("late") }], [])).rejects.toBeInstanceOf(FencedError);
      expect(await readTopic(topic, { readCommitted: true })).toEqual([]);
    } finally {
      await zombie.close();
      await owner.close();
      await admin.disconnect();
    }
  });
});

describe("a thread's open transaction whose early send the broker refuses for good", () => {
  it("fails the next commit with a FatalError naming the record (every task rewinds, nothing visible), and leaves the transaction resolved", async () => {
    const client = testClient();
    const admin = client.admin();
    await admin.connect();
    const topic = uniqueName("eos-refused");
    const input = uniqueName("eos-refused-in");
    const applicationId = uniqueName("app");
    // The broker refuses a batch over 1,000 bytes for good (MESSAGE_TOO_LARGE): sending it
    // again would be refused again, so a rewind would repeat it for ever.
    await admin.createTopics([{ name: topic, partitions: 1, configs: { "max.message.bytes": "1000" } }, { name: input, partitions: 1 }]);
    const committer = new ThreadProducerCommitter({ client, applicationId, transactionTimeoutMs: 10_000, logger: silentLogger, processId: uniqueName("process"), thread: 1 });
    const task = fakeTask("0_0", { topic: input, partition: 0, offset: 1 });
    try {
      await committer.prepare();
      task.output.send(topic, Buffer.from("small-key"), Buffer.from("fits"), 1_000);
      task.output.send(topic, Buffer.from("big-key"), Buffer.alloc(5_000), 1_000);
      await committer.sendOutput([task], { waitForSends: true });
      const refused = await committer.commit([task]).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(FatalError);
      const message = (refused as Error).message;
      expect(message).toContain("MESSAGE_TOO_LARGE");
      expect(message).toContain(`topic ${topic}`);
      expect(message).toContain('key "big-key", 5007 bytes');
      expect(message).toContain("max.message.bytes");
      expect(task.rewound).toBe(1);
      expect(await readTopic(topic, { readCommitted: true })).toEqual([]);
      // The transaction was resolved: the same committer commits the next cycle.
      task.output.send(topic, null, Buffer.from("small"), 2_000);
      await committer.sendOutput([task], { waitForSends: true });
      expect((await committer.commit([task])).committed).toEqual([{ topic: input, partition: 0, offset: 1 }]);
      expect((await readTopic(topic, { readCommitted: true })).map((r) => r.value?.toString())).toEqual(["small"]);
    } finally {
      await committer.close();
      await admin.disconnect();
    }
  });
});

describe("a thread's open transaction at an abandon and at close", () => {
  it("keeps a send the broker refused for good as the next commit's error across an abandon (an assignment applied meanwhile)", async () => {
    const client = testClient();
    const admin = client.admin();
    await admin.connect();
    const topic = uniqueName("eos-refused-kept");
    await admin.createTopics([{ name: topic, partitions: 1, configs: { "max.message.bytes": "1000" } }]);
    const applicationId = uniqueName("app");
    const committer = new ThreadProducerCommitter({ client, applicationId, transactionTimeoutMs: 10_000, logger: silentLogger, processId: uniqueName("process"), thread: 1 });
    const task = fakeTask("0_0", { topic, partition: 0, offset: 0 });
    try {
      await committer.prepare();
      task.output.send(topic, Buffer.from("big-key"), Buffer.alloc(5_000), 1_000);
      await committer.sendOutput([task], { waitForSends: true });
      // The thread applies an assignment: the transaction is thrown away, the tasks rewind.
      await committer.abandon();
      task.rewind();
      // Nothing was processed again yet, and no offsets moved: the refusal still stops the app.
      const idle = fakeTask("0_0", { topic, partition: 0, offset: 0 });
      idle.committableOffsets = () => [];
      await expect(committer.commit([idle])).rejects.toBeInstanceOf(FatalError);
    } finally {
      await committer.close();
      await admin.disconnect();
    }
  });

  it("aborts the open transaction at close, so read_committed readers are not held back until its timeout", async () => {
    const client = testClient();
    const admin = client.admin();
    await admin.connect();
    const topic = uniqueName("eos-closed-open");
    await admin.createTopics([{ name: topic, partitions: 1 }]);
    const applicationId = uniqueName("app");
    // Far longer than the read below waits: only an abort lets it through.
    const committer = new ThreadProducerCommitter({ client, applicationId, transactionTimeoutMs: 120_000, logger: silentLogger, processId: uniqueName("process"), thread: 1 });
    const task = fakeTask("0_0", { topic, partition: 0, offset: 0 });
    const plain = client.producer({ idempotent: true });
    try {
      await committer.prepare();
      task.output.send(topic, null, Buffer.from("sent early, never committed"), 1_000);
      await committer.sendOutput([task], { waitForSends: true });
      await committer.close();
      await plain.connect();
      await plain.send([{ topic, key: null, value: Buffer.from("after") }]);
      const read = await readTopic(topic, { readCommitted: true, count: 1, timeoutMs: 20_000 });
      expect(read.map((r) => r.value?.toString())).toEqual(["after"]);
    } finally {
      await committer.close();
      await plain.disconnect();
      await admin.disconnect();
    }
  });
});

/** An engine task as a committer sees it: output, offsets to commit, and what the committer tells it. */
function fakeTask(id: string, offset: TopicPartitionOffset) {
  const task = {
    id,
    output: new OutputBuffer(),
    rewound: 0,
    prepareCommit: () => undefined,
    committableOffsets: () => [offset],
    outputFlushed: () => undefined,
    offsetsCommitted: () => undefined,
    rewind: () => {
      task.rewound++;
      task.output.clear();
    },
  };
  return task as typeof task & EngineTask;
}

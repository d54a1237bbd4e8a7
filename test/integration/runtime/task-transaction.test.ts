import { describe, expect, it } from "vitest";
import { FencedError } from "../../../lib/errors/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { CommitTransaction } from "../../../lib/runtime/eos/commit-transaction.ts";
import { taskTransactionalId } from "../../../lib/runtime/eos/task-producers.ts";
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

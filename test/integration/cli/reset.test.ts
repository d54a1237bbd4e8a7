import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StreamsApp } from "../../../lib/index.ts";
import type { KafkaAdmin } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { bootstrap, readTopic, testClient, uniqueName } from "../support.ts";
import { sluice } from "./run-cli.ts";
import { topology } from "./counting-topology.ts";

const topologyModule = resolve(import.meta.dirname, "counting-topology.ts");

/** Runs the counting topology as `applicationId` until `count` outputs arrived, then stops it. */
async function runApp(applicationId: string, env: { INPUT: string; OUTPUT: string }, count: number): Promise<void> {
  Object.assign(process.env, env);
  const app = new StreamsApp(topology(), {
    applicationId,
    bootstrapServers: bootstrap(),
    stateDir: mkdtempSync(join(tmpdir(), "sluice-cli-")),
    commitIntervalMs: 100,
    cacheMaxBytes: 0,
    logger: silentLogger,
  });
  await app.start({ handleSignals: false });
  try {
    await readTopic(env.OUTPUT, { count, timeoutMs: 60_000 });
  } finally {
    await app.close();
  }
}

describe("sluice reset on the broker", () => {
  let admin: KafkaAdmin;
  beforeAll(async () => {
    admin = testClient().admin();
    await admin.connect();
  });
  afterAll(() => admin.disconnect());

  it("refuses a name prefix another application shares, and with the module deletes exactly the app's own topics", async () => {
    // Two applications "pv-…" and "pv-…-v2" with a store of the same name: the topic
    // pv-…-v2-counts-changelog could be pv's store "v2-counts" as well as pv-v2's "counts".
    const pv = uniqueName("pv");
    const pvV2 = `${pv}-v2`;
    const env = { INPUT: uniqueName("views"), OUTPUT: uniqueName("view-counts") };
    const envV2 = { INPUT: env.INPUT, OUTPUT: uniqueName("view-counts-v2") };
    await admin.createTopics([{ name: env.INPUT, partitions: 2 }, { name: env.OUTPUT, partitions: 2 }, { name: envV2.OUTPUT, partitions: 2 }]);
    const producer = testClient().producer({ idempotent: true });
    await producer.connect();
    await producer.send(Array.from({ length: 20 }, (_, i) => ({ topic: env.INPUT, key: Buffer.from(`page-${i % 4}`), value: Buffer.from("x") })));
    await producer.disconnect();
    await runApp(pv, env, 20);
    await runApp(pvV2, envV2, 20);
    const ownTopics = (app: string) => admin.listTopics().then((topics) => topics.filter((t) => t.startsWith(`${app}-`) && t.endsWith("-changelog")).sort());
    expect(await ownTopics(pvV2)).toEqual([`${pvV2}-counts-changelog`]);

    const byPrefix = await sluice(["reset", "--application-id", pv, "--bootstrap-servers", bootstrap()]);
    expect(byPrefix.code).toBe(1);
    expect(byPrefix.stderr).toContain(`${pvV2}-counts-changelog`);
    expect(byPrefix.stderr).toContain("--module");
    expect(await ownTopics(pv)).toEqual([`${pv}-counts-changelog`, `${pvV2}-counts-changelog`]); // nothing deleted

    const withModule = await sluice(["reset", "--application-id", pv, "--module", topologyModule, "--bootstrap-servers", bootstrap()], env);
    expect(withModule.code, withModule.stderr).toBe(0);
    expect(withModule.stdout).toContain(`deleting internal topics: ${pv}-counts-changelog\n`);
    const remaining = await admin.listTopics();
    expect(remaining).not.toContain(`${pv}-counts-changelog`);
    expect(remaining).toContain(`${pvV2}-counts-changelog`);
    // pv's input offsets are back at the start; pv-v2's are where its run left them.
    const committed = async (group: string) => (await admin.committedOffsets(group, [env.INPUT])).map((o) => o.offset).reduce((a, b) => a + b, 0);
    expect(await committed(pv)).toBe(0);
    expect(await committed(pvV2)).toBe(20);
  });

  it("reports a broker that does not answer at once, naming the address", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as { port: number };
    await new Promise((r) => server.close(r));

    const result = await sluice(["reset", "--application-id", "anything", "--bootstrap-servers", `127.0.0.1:${port}`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`no Kafka broker answered at 127.0.0.1:${port}`);
    expect(result.stderr).toContain("ECONNREFUSED");
  }, 20_000); // an application's client retries for ~34 s; the tool gives up after one retry
});

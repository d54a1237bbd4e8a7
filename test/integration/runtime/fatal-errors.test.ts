import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Consumed, PoisonRecordError, Produced, Serdes, StreamsApp, StreamsBuilder, type UncaughtExceptionResponse } from "../../../lib/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { bootstrap, readTopic, testClient, uniqueName } from "../support.ts";

/** A one-partition input holding a good record at offset 0 and an undecodable one at offset 1. */
async function inputWithPoisonRecord(): Promise<{ input: string; output: string }> {
  const input = uniqueName("payments");
  const output = uniqueName("payments-out");
  const admin = testClient().admin();
  await admin.connect();
  await admin.createTopics([{ name: input, partitions: 1 }, { name: output, partitions: 1 }]);
  await admin.disconnect();
  const producer = testClient().producer({ idempotent: true });
  await producer.connect();
  await producer.send([
    { topic: input, partition: 0, key: Buffer.from("a"), value: Buffer.from(JSON.stringify({ amount: 5 })) },
    { topic: input, partition: 0, key: Buffer.from("b"), value: Buffer.from("{not json") },
  ]);
  await producer.disconnect();
  return { input, output };
}

describe("an unrecoverable error after start", () => {
  it("ends the process with a non-zero exit code after closing, the log naming the record (no handler installed)", async () => {
    const { input, output } = await inputWithPoisonRecord();
    const child = spawn(process.execPath, [resolve(import.meta.dirname, "../workers/json-worker.ts")], {
      env: { ...process.env, APP_ID: uniqueName("poisoned"), INPUT: input, OUTPUT: output, STATE_DIR: mkdtempSync(join(tmpdir(), "sluice-fatal-")) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let log = "";
    child.stderr.on("data", (chunk: Buffer) => (log += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.once("exit", (exitCode) => done(exitCode)));

    expect(code, log).toBe(1);
    // The app's log lines (Node's own warnings are not JSON).
    const lines = log.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as { level: string; message: string; error?: string });
    const fatal = lines.find((l) => l.message === "stopping on an unrecoverable error");
    expect(fatal?.error).toContain(`topic "${input}" partition 0 offset 1`);
    // Closed cleanly before exiting: the shutdown ran, then the exit was announced.
    const messages = lines.map((l) => l.message);
    expect(messages.indexOf("stopped")).toBeGreaterThan(messages.indexOf("stopping on an unrecoverable error"));
    expect(messages.at(-1)).toMatch(/^exiting the process with code 1/);
    // The record before the poison one was processed.
    expect((await readTopic(output, { count: 1 })).map((r) => JSON.parse(r.value!.toString()) as unknown)).toEqual([{ amount: 500 }]);
  });

  it("with a handler answering SHUTDOWN_CLIENT leaves the process running; whenStopped() rejects with the error", async () => {
    const { input, output } = await inputWithPoisonRecord();
    const builder = new StreamsBuilder();
    builder.stream(input, Consumed.with(Serdes.string(), Serdes.json<{ amount: number }>())).to(output, Produced.with(Serdes.string(), Serdes.json<{ amount: number }>()));
    const seen: Error[] = [];
    const app = new StreamsApp(builder.build(), {
      applicationId: uniqueName("poisoned-kept"),
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-fatal-")),
      commitIntervalMs: 100,
      logger: silentLogger,
      uncaughtExceptionHandler: (error): UncaughtExceptionResponse => {
        seen.push(error);
        return "SHUTDOWN_CLIENT";
      },
    });
    await app.start({ handleSignals: false });
    const stopped = await app.whenStopped().then(() => null, (error: unknown) => error);

    // This test's process still runs (an exit would have ended the test run).
    expect(stopped).toBeInstanceOf(PoisonRecordError);
    expect((stopped as PoisonRecordError).record).toMatchObject({ topic: input, partition: 0, offset: 1 });
    expect(seen).toEqual([stopped]);
    expect(app.state).toBe("ERROR");
  });

  it("whenStopped() resolves after close()", async () => {
    const { input, output } = await inputWithPoisonRecord();
    const builder = new StreamsBuilder();
    builder.stream(input, Consumed.with(Serdes.bytes(), Serdes.bytes())).to(output, Produced.with(Serdes.bytes(), Serdes.bytes()));
    const app = new StreamsApp(builder.build(), { applicationId: uniqueName("closed"), bootstrapServers: bootstrap(), stateDir: mkdtempSync(join(tmpdir(), "sluice-fatal-")), logger: silentLogger });
    await app.start({ handleSignals: false });
    await app.close();
    await expect(app.whenStopped()).resolves.toBeUndefined();
    expect(app.state).toBe("NOT_RUNNING");
  });
});

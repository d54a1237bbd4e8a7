import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Consumed, Materialized, StreamsBuilder } from "../../../lib/dsl/index.ts";
import type { Logger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { bootstrap, testClient, uniqueName, waitFor } from "../support.ts";

type Line = { level: string; message: string; fields?: Record<string, unknown> };

function capturingLogger(lines: Line[]): Logger {
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push({ level, message, ...(fields ? { fields } : {}) });
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

describe("several apps in one process", () => {
  it("each keeps its own logger: the engine's, the Kafka client's and the skipped-record lines of its own tasks", async () => {
    const admin = testClient().admin();
    await admin.connect();
    const apps = ["left", "right"].map((name) => ({ name, input: uniqueName(`${name}-in`), applicationId: uniqueName(`loggers-${name}`), lines: [] as Line[] }));
    await admin.createTopics(apps.map((a) => ({ name: a.input, partitions: 1 })));
    const running = apps.map((a) => {
      const builder = new StreamsBuilder();
      builder.stream(a.input, Consumed.with(Serdes.string(), Serdes.string())).groupByKey().count(Materialized.as("counts"));
      return new StreamsApp(builder.build(), {
        applicationId: a.applicationId,
        bootstrapServers: bootstrap(),
        stateDir: mkdtempSync(join(tmpdir(), `sluice-loggers-${a.name}-`)),
        commitIntervalMs: 200,
        logger: capturingLogger(a.lines),
      });
    });
    try {
      await Promise.all(running.map((app) => app.start()));
      // A null key reaching the aggregation is skipped with a warning naming its task and offset.
      const producer = testClient().producer({ idempotent: true });
      await producer.connect();
      await producer.send(apps.map((a) => ({ topic: a.input, key: null, value: Buffer.from(a.name) })));
      await producer.disconnect();
      const skipped = (a: (typeof apps)[number]) => a.lines.filter((l) => l.message.startsWith("Skipping record"));
      await waitFor("both apps skipped their null-keyed record", () => apps.every((a) => skipped(a).length === 1), 60_000);
      for (const a of apps) {
        // Its own app's lines only: the application id appears in no line of the other app.
        const other = apps.find((o) => o !== a)!;
        expect(a.lines.some((l) => l.message === "partitions assigned")).toBe(true);
        expect(JSON.stringify(a.lines)).not.toContain(other.applicationId);
        expect(JSON.stringify(a.lines)).not.toContain(other.input);
        expect(skipped(a)[0]!.fields).toMatchObject({ topic: a.input, offset: 0 });
      }
    } finally {
      await Promise.all(running.map((app) => app.close()));
      await admin.disconnect();
    }
  });
});

import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Consumed, Produced, Serdes, StreamsApp, StreamsBuilder } from "../../../lib/index.ts";
import { waitFor } from "../support.ts";

/** A port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

describe("a broker that cannot be reached at start", () => {
  it("is waited for with clear log lines, not turned into a crash, and close() ends the wait", async () => {
    const builder = new StreamsBuilder();
    builder.stream("in", Consumed.with(Serdes.string(), Serdes.string())).to("out", Produced.with(Serdes.string(), Serdes.string()));
    const lines: string[] = [];
    const record = (level: string) => (message: string, fields?: Record<string, unknown>) => lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
    const port = await closedPort();
    const app = new StreamsApp(builder.build(), {
      applicationId: "unreachable",
      bootstrapServers: `127.0.0.1:${port}`,
      stateDir: mkdtempSync(join(tmpdir(), "sluice-")),
      logger: { debug() {}, info: record("info"), warn: record("warn"), error: record("error") },
    });
    const started = app.start({ handleSignals: false });
    await waitFor("a log line naming the refused connection", () => lines.some((l) => l.includes("ECONNREFUSED")), 30_000);
    expect(app.state).toBe("REBALANCING");
    await app.close();
    await started;
    expect(app.state).toBe("NOT_RUNNING");
    expect(lines.join("\n")).toContain(`127.0.0.1:${port}`);
  });
});

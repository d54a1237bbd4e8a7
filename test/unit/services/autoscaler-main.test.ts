import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { kubeConfigFile, startFakeApiServer, type FakeApiServer } from "./autoscaler-api-server.ts";

const main = resolve(import.meta.dirname, "../../../services/autoscaler/main.ts");

/** A port nothing listens on: the broker the autoscaler cannot reach. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, [main], { env: { PATH: process.env["PATH"] ?? "", NODE_OPTIONS: process.env["NODE_OPTIONS"] ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d));
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  const lines = () => stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  return { child, exited, lines, stderr: () => stderr };
}

describe("the autoscaler process", () => {
  let api: FakeApiServer;
  beforeEach(async () => {
    api = await startFakeApiServer({ "streams/orders": 3 });
  });
  afterEach(() => api.close());

  it("holds while the broker is unreachable, and stops cleanly on SIGTERM", async () => {
    const dir = mkdtempSync(join(tmpdir(), "autoscaler-main-"));
    writeFileSync(join(dir, "kubeconfig"), kubeConfigFile(api));
    const run = start({
      KUBECONFIG: join(dir, "kubeconfig"),
      KAFKA_BOOTSTRAP_SERVERS: `127.0.0.1:${await closedPort()}`,
      APPLICATION_ID: "orders",
      AUTOSCALER_STATEFULSET: "orders",
      AUTOSCALER_NAMESPACE: "streams",
      AUTOSCALER_MAX_REPLICAS: "6",
      AUTOSCALER_POLL_INTERVAL_SECONDS: "0.2",
    });
    while (!run.lines().some((l) => l["message"] === "holding")) {
      if (run.child.exitCode !== null) throw new Error(`exited early: ${run.stderr()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    const lines = run.lines();
    expect(lines[0]).toMatchObject({ message: "started", groupId: "orders", statefulSet: "streams/orders", maxReplicas: 6 });
    expect(lines.find((l) => l["message"] === "holding")).toMatchObject({ from: 3, to: 3, reason: expect.stringContaining("lag read failed") });
    expect(lines.slice(-2).map((l) => l["message"])).toEqual(["SIGTERM: stopping after the poll under way", "stopped"]);
    expect(api.requests.some((r) => r.method !== "GET")).toBe(false);
    expect(api.replicas.get("streams/orders")).toBe(3);
  });

  it("refuses to start without its settings, naming the missing one", async () => {
    const run = start({ KAFKA_BOOTSTRAP_SERVERS: "kafka:9092", APPLICATION_ID: "orders" });
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain("AUTOSCALER_MAX_REPLICAS is not set");
  });
});

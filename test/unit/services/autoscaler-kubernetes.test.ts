import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ScaleConflictError, statefulSetScale } from "../../../services/autoscaler/kubernetes.ts";
import { Autoscaler } from "../../../services/autoscaler/loop.ts";
import type { ScalingPolicy } from "../../../services/autoscaler/decide.ts";
import { startFakeApiServer, type FakeApiServer } from "./autoscaler-api-server.ts";

const scalePath = "/apis/apps/v1/namespaces/streams/statefulsets/orders/scale";

describe("the StatefulSet scale through @kubernetes/client-node", () => {
  let api: FakeApiServer;
  beforeEach(async () => {
    api = await startFakeApiServer({ "streams/orders": 2 });
  });
  afterEach(() => api.close());

  it("reads the scale subresource and replaces it, with the bearer token on every request", async () => {
    const scale = statefulSetScale(api.kubeConfig(), "streams", "orders");
    const seen = await scale.read();
    expect(seen.replicas).toBe(2);
    await scale.write(5, seen);
    expect(api.replicas.get("streams/orders")).toBe(5);
    expect((await scale.read()).replicas).toBe(5);
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET ${scalePath}`, `PUT ${scalePath}`, `GET ${scalePath}`]);
    for (const r of api.requests) expect(r.authorization).toBe(`Bearer ${api.token}`);
    expect(api.requests[1]!.body).toMatchObject({ kind: "Scale", metadata: { name: "orders", namespace: "streams", resourceVersion: seen.resourceVersion }, spec: { replicas: 5 } });
  });

  it("refuses to overwrite a scale changed since it was read", async () => {
    const scale = statefulSetScale(api.kubeConfig(), "streams", "orders");
    const seen = await scale.read();
    api.scaleBehindTheBack("streams/orders", 7);
    const error = await scale.write(3, seen).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScaleConflictError);
    expect(api.replicas.get("streams/orders")).toBe(7);
  });

  it("explains a rejected token and a missing StatefulSet", async () => {
    const unauthorized = await statefulSetScale(api.kubeConfig("stale-token"), "streams", "orders").read().then(() => null, (e: unknown) => e as Error);
    expect(api.requests.at(-1)!.authorization).toBe("Bearer stale-token");
    expect(unauthorized?.message).toMatch(/HTTP 401.*credentials/);
    const missing = await statefulSetScale(api.kubeConfig(), "streams", "payments").read().then(() => null, (e: unknown) => e as Error);
    expect(missing?.message).toMatch(/StatefulSet streams\/payments: HTTP 404.*AUTOSCALER_STATEFULSET/);
  });
});

describe("the autoscaler loop against the API server", () => {
  const policy: ScalingPolicy = { targetLagPerReplica: 100, minReplicas: 1, maxReplicas: 8, tolerance: 0.1, scaleDownStabilizationMs: 60_000 };
  let api: FakeApiServer;
  let lines: { message: string; fields: Record<string, unknown> | undefined }[];
  const logger = {
    debug() {},
    info: (message: string, fields?: Record<string, unknown>) => lines.push({ message, fields }),
    warn: (message: string, fields?: Record<string, unknown>) => lines.push({ message, fields }),
    error: (message: string, fields?: Record<string, unknown>) => lines.push({ message, fields }),
  };
  beforeEach(async () => {
    api = await startFakeApiServer({ "streams/orders": 2 });
    lines = [];
  });
  afterEach(() => api.close());

  /** An autoscaler whose lag reads return the scripted values in turn; null fails the read. */
  const autoscaler = (lags: (number | null)[], dryRun = false) => {
    let now = 0;
    const next = [...lags];
    return new Autoscaler({
      policy,
      dryRun,
      logger,
      now: () => (now += 30_000),
      scale: statefulSetScale(api.kubeConfig(), "streams", "orders"),
      readLag: async () => {
        const total = next.shift();
        if (total === null || total === undefined) throw new Error("broker unreachable");
        return { total, partitions: 6 };
      },
    });
  };
  const puts = () => api.requests.filter((r) => r.method === "PUT").length;

  it("scales up, then down after the window, logging each decision with its reason", async () => {
    const loop = autoscaler([450, 40, 40, 40]);
    expect(await loop.poll()).toMatchObject({ applied: true, decision: { action: "scale-up", replicas: 5 } });
    expect(api.replicas.get("streams/orders")).toBe(5);
    expect(await loop.poll()).toMatchObject({ applied: false, decision: { action: "hold" } }); // the 450 is in the window
    expect(await loop.poll()).toMatchObject({ applied: false, decision: { action: "hold" } });
    expect(await loop.poll()).toMatchObject({ applied: true, decision: { action: "scale-down", replicas: 1 } });
    expect(api.replicas.get("streams/orders")).toBe(1);
    expect(lines.map((l) => l.message)).toEqual(["scale-up", "holding", "holding", "scale-down"]);
    for (const l of lines) expect(l.fields).toMatchObject({ reason: expect.any(String), from: expect.any(Number), to: expect.any(Number) });
  });

  it("in dry-run mode logs what it would do and never writes", async () => {
    const loop = autoscaler([900], true);
    expect(await loop.poll()).toMatchObject({ applied: false, decision: { action: "scale-up", replicas: 6 } });
    expect(puts()).toBe(0);
    expect(api.replicas.get("streams/orders")).toBe(2);
    expect(lines).toEqual([{ message: "dry run: would scale-up", fields: expect.objectContaining({ from: 2, to: 6, dryRun: true }) }]);
  });

  it("changes nothing when the lag read fails, and survives an API error", async () => {
    const loop = autoscaler([null, 900]);
    expect(await loop.poll()).toMatchObject({ applied: false, decision: { action: "hold", reason: expect.stringContaining("missing data") } });
    expect(puts()).toBe(0);
    expect(lines[0]).toMatchObject({ message: "lag read failed" });
    api.replicas.delete("streams/orders");
    expect(await loop.poll()).toEqual({ decision: null, applied: false });
    expect(lines.at(-1)!.message).toContain("could not read the StatefulSet's scale");
  });
});

import { afterEach, describe, expect, it } from "vitest";
import { addStatusRoutes, HttpServer, json, type InstanceStatus } from "../../../lib/observability/index.ts";

function status(overrides: Partial<InstanceStatus>): InstanceStatus {
  return {
    applicationId: "app",
    instanceId: "id",
    applicationServer: null,
    state: "RUNNING",
    threadAlive: true,
    tasks: { active: ["0_0"], standby: [], restoring: [] },
    lag: [],
    lastCommit: null,
    processedRecords: 0,
    error: null,
    ...overrides,
  };
}

let server: HttpServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function serve(current: () => InstanceStatus): Promise<(path: string, method?: string) => Promise<{ status: number; body: Record<string, unknown> }>> {
  server = new HttpServer();
  addStatusRoutes(server.router, current, null);
  server.router.get("/boom", () => {
    throw new Error("handler broke");
  });
  server.router.get("/extra", (_req, res) => json(res, 200, { added: true }));
  await server.listen(0, "127.0.0.1");
  const port = server.port!;
  return async (path, method = "GET") => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { method });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
}

describe("health and status routes", () => {
  it("ready only when RUNNING with nothing restoring; live until the thread dies", async () => {
    let current = status({ state: "REBALANCING" });
    const get = await serve(() => current);
    expect(await get("/health/ready")).toMatchObject({ status: 503, body: { reason: "state is REBALANCING, not RUNNING" } });
    expect((await get("/health/live")).status).toBe(200);
    current = status({ tasks: { active: [], standby: [], restoring: ["0_1", "1_0"] } });
    expect(await get("/health/ready")).toMatchObject({ status: 503, body: { restoring: ["0_1", "1_0"] } });
    expect((await get("/health/live")).status).toBe(200); // a long restore is no reason to restart the pod
    current = status({});
    expect((await get("/health/ready")).status).toBe(200);
    current = status({ state: "ERROR", threadAlive: false, error: "poison record at offset 7" });
    expect(await get("/health/live")).toMatchObject({ status: 503, body: { reason: "poison record at offset 7" } });
    expect((await get("/status")).body).toEqual(current);
  });

  it("adds routes, answers 404 and 405 with what exists, 500 when a handler throws", async () => {
    const get = await serve(() => status({}));
    expect(await get("/extra")).toEqual({ status: 200, body: { added: true } });
    const missing = await get("/nope");
    expect(missing.status).toBe(404);
    expect(missing.body["routes"]).toContain("GET /health/live");
    expect((await get("/status", "POST")).status).toBe(405);
    expect(await get("/boom")).toEqual({ status: 500, body: { error: "handler broke" } });
    expect(() => server!.router.get("/extra", () => undefined)).toThrow(/already registered/);
  });
});

import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { SluiceError } from "../../lib/errors/index.ts";
import { adapters, clientFor, uniqueName } from "./support.ts";

const actionOf = (error: unknown) => (error instanceof SluiceError ? error.action : `not a SluiceError: ${String(error)}`);

// Rejoin (a fenced producer) is in transactions.test.ts; here the other two answers.
describe.each(adapters)("the %s adapter's error translation", (name) => {
  it("turns a broker's refusal of a bad setting into fatal", async () => {
    const client = clientFor(name);
    const admin = client.admin();
    await admin.connect();
    const topic = uniqueName("bad-config");
    const failure = await admin
      .createTopics([{ name: topic, partitions: 1, configs: { "cleanup.policy": "sometimes" } }])
      .then(() => null, (error: unknown) => error);
    await admin.disconnect();
    expect(actionOf(failure)).toBe("fatal");
    expect(String((failure as Error).message)).toContain(topic);
  });

  it("turns a broker that cannot be reached into retry", async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const admin = clientFor(name, { brokers: [`127.0.0.1:${port}`], retries: 0 }).admin();
    const failure = await admin.connect().then(() => admin.listTopics()).then(() => null, (error: unknown) => error);
    await admin.disconnect().catch(() => undefined);
    expect(actionOf(failure)).toBe("retry");
    // The socket's own reason is in the message, for the operator reading the log.
    expect(String((failure as Error).message)).toContain("ECONNREFUSED");
  });

  // Instances of one application start together and race to create its internal topics:
  // the loser's "already exists" is the outcome it wanted, not an error.
  it("lets instances racing to create the same topics all succeed", async () => {
    const topics = [uniqueName("race"), uniqueName("race")].map((topicName) => ({ name: topicName, partitions: 2 }));
    const admins = Array.from({ length: 4 }, () => clientFor(name).admin());
    await Promise.all(admins.map((a) => a.connect()));
    try {
      const created = await Promise.all(admins.map((a) => a.createTopics(topics)));
      expect(created.flat().length).toBeGreaterThanOrEqual(topics.length);
      const listed = await admins[0]!.listTopics();
      for (const t of topics) expect(listed).toContain(t.name);
    } finally {
      await Promise.all(admins.map((a) => a.disconnect()));
    }
  });
});

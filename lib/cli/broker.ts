import { ConfigError, FatalError } from "../errors/index.ts";
import { createKafkaClient, type KafkaAdmin } from "../kafka/index.ts";
import { silentLogger } from "../observability/index.ts";

/**
 * An admin client for a command, connected. A tool should say within seconds that no
 * broker answers, not retry for half a minute as a running application does: one retry,
 * 3 s per connection attempt.
 */
export async function connectAdmin(bootstrapServers: string, clientId: string): Promise<KafkaAdmin> {
  const brokers = bootstrapServers.split(",").map((s) => s.trim()).filter(Boolean);
  const admin = createKafkaClient({ clientId, brokers, connectionTimeoutMs: 3_000, requestTimeoutMs: 10_000, retries: 1 }, silentLogger).admin();
  try {
    await admin.connect();
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new FatalError(
      `no Kafka broker answered at ${brokers.join(",")} (${(error as Error).message}); check --bootstrap-servers (or KAFKA_BOOTSTRAP_SERVERS) and that the broker runs`,
      { cause: error },
    );
  }
  return admin;
}

import type { Logger } from "../../observability/index.ts";
import type { KafkaClient } from "../client.ts";
import type { KafkaConnection } from "../config.ts";
import type { ClientCapabilities } from "../types.ts";
import { PlatformaticAdmin } from "./admin.ts";
import { PlatformaticGroupConsumer } from "./consumer.ts";
import { PlatformaticProducer } from "./producer.ts";
import { rangeReads } from "../range-reads.ts";
import { RestoreReader } from "./restore-reader.ts";
import { PlatformaticTransactionalProducer } from "./transactional-producer.ts";

// What this adapter does with @platformatic/kafka 2.12:
// - TxnOffsetCommit v3 with the group generation, member id and instance id (KIP-447) of
//   the consumer the engine names, and OffsetFetch with requireStable (admin.ts);
// - JoinGroup with group.instance.id when the consumer is given one (KIP-345); a static
//   member closes without LeaveGroup (consumer.ts);
// - the engine's asynchronous assignor with per-member assignment userData, and rejoin()
//   on request, through the client's SyncGroup and Heartbeat calls (group-protocol.ts);
// - the beforeRejoin handler runs (awaited) before every rejoin, through the client's
//   protocolsMetadata callback, which it awaits before each JoinGroup.
// Cooperative rebalancing is offered by the client only for its own cooperative-sticky
// assignor, not for an assignor of the application's, so the engine's eager one is used.
const platformaticCapabilities: ClientCapabilities = {
  fencesOffsetsByGeneration: true,
  staticMembership: true,
  revocationHook: true,
};

/** The boundary on @platformatic/kafka. */
export function createPlatformaticClient(connection: KafkaConnection, logger: Logger): KafkaClient {
  return {
    capabilities: platformaticCapabilities,
    admin: () => new PlatformaticAdmin(connection),
    producer: (options) => new PlatformaticProducer(connection, options),
    transactionalProducer: (options) => new PlatformaticTransactionalProducer(connection, options),
    consumer: (options) => new PlatformaticGroupConsumer(connection, options, logger),
    ...rangeReads(() => new RestoreReader(connection, logger)),
  };
}

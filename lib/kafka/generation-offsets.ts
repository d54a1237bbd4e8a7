/**
 * Offsets fenced by the group generation (KIP-447) on kafkajs, which speaks TxnOffsetCommit
 * v1 (no generation) and OffsetFetch v4 (no require_stable) only. The two requests that
 * exactly-once with one producer per stream thread rests on are sent here, through the
 * coordinator's own connection (as static-membership.ts sends its group requests):
 *
 * - TxnOffsetCommit v3 carries the generation, member id and group instance id of the
 *   assignment the offsets belong to, so the coordinator refuses a zombie's offsets once
 *   the group moved on (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID);
 * - OffsetFetch v7 with require_stable is answered UNSTABLE_OFFSET_COMMIT for a partition
 *   while an open transaction holds offsets of it, so a new owner waits that out.
 *
 * Both are flexible versions: compact strings and arrays, tagged fields, request header v2
 * (the client's v1 header plus an empty tag buffer, written here as the body's first byte)
 * and response header v1 (the client reads the correlation id; the tag buffer after it is
 * the first thing decoded here). Brokers have both since Kafka 2.5.
 */
import { createRequire } from "node:module";
import { type RequestingBroker, sendOwnRequest, unsupportedVersion } from "./own-requests.ts";
import type { GroupMetadata, TopicPartitionOffset } from "./types.ts";

const require = createRequire(import.meta.url);

interface Encoder {
  writeInt16(value: number): Encoder;
  writeInt32(value: number): Encoder;
  writeInt64(value: string | number): Encoder;
  writeBoolean(value: boolean): Encoder;
  writeUVarInt(value: number): Encoder;
  writeUVarIntString(value: string | null): Encoder;
  writeUVarIntArray(values: Encoder[], type: "object"): Encoder;
}
interface Decoder {
  readInt16(): number;
  readInt32(): number;
  readInt64(): { toString(): string };
  readUVarInt(): number;
  readUVarIntString(): string | null;
  readUVarIntArray<T>(reader: (decoder: Decoder) => T): T[] | null;
  forward(bytes: number): void;
}
type ProtocolRequest = { request: { apiKey: number; apiVersion: number; apiName: string; encode(): Promise<Encoder> }; response: { decode(raw: Buffer): Promise<unknown>; parse(data: unknown): Promise<unknown> } };

/** What of a kafkajs broker object these requests use. */
export interface CoordinatorConnection extends RequestingBroker {
  txnOffsetCommit(args: TxnOffsetCommitArgs): Promise<unknown>;
}

/** The arguments kafkajs' transaction manager gives the group coordinator's TxnOffsetCommit. */
export interface TxnOffsetCommitArgs {
  transactionalId: string;
  groupId: string;
  producerId: number | string;
  producerEpoch: number;
  topics: { topic: string; partitions: { partition: number; offset: string | number; metadata?: string | null }[] }[];
}

interface KafkajsProtocol {
  Encoder: new () => Encoder;
  Decoder: new (buffer: Buffer) => Decoder;
  apiKeys: Record<string, number>;
  failure(code: number): boolean;
  createErrorFromCode(code: number): Error;
  errors: { KafkaJSNonRetriableError: new (message: string) => Error };
}
let loaded: KafkajsProtocol | null = null;

// Required on first use, not at import: ./kafkajs.ts imports this module before it drops
// kafkajs from the module cache, and these must be the copy the client runs.
function protocol(): KafkajsProtocol {
  loaded ??= {
    Encoder: require("kafkajs/src/protocol/encoder.js") as KafkajsProtocol["Encoder"],
    Decoder: require("kafkajs/src/protocol/decoder.js") as KafkajsProtocol["Decoder"],
    apiKeys: require("kafkajs/src/protocol/requests/apiKeys.js") as KafkajsProtocol["apiKeys"],
    ...(require("kafkajs/src/protocol/error.js") as Pick<KafkajsProtocol, "failure" | "createErrorFromCode">),
    errors: require("kafkajs/src/errors.js") as KafkajsProtocol["errors"],
  };
  return loaded;
}

// The generation a producer's sendOffsets is sending with, by transactional id, for the
// duration of that call: kafkajs' transaction manager passes on only its own arguments.
const generations = new Map<string, GroupMetadata>();

/** Runs `call` (the client's sendOffsets) so that its TxnOffsetCommit carries `member`'s generation. */
export async function withGeneration<T>(transactionalId: string, member: GroupMetadata | null | undefined, call: () => Promise<T>): Promise<T> {
  if (!member) return call();
  generations.set(transactionalId, member);
  try {
    return await call();
  } finally {
    generations.delete(transactionalId);
  }
}

/** The group coordinator's TxnOffsetCommit: v3 with the generation inside `withGeneration`, else the client's own. */
export function sendTxnOffsetCommit(broker: CoordinatorConnection, args: TxnOffsetCommitArgs): Promise<unknown> {
  const member = generations.get(args.transactionalId);
  if (!member) return broker.txnOffsetCommit(args);
  return send(broker, txnOffsetCommitV3(args, member));
}

/**
 * Committed offsets of a group's partitions as OffsetFetch v7 answers them with
 * require_stable; a partition whose offsets an open transaction holds fails the request
 * with UNSTABLE_OFFSET_COMMIT (retriable). Partitions without a commit are absent.
 */
export async function fetchStableOffsets(broker: CoordinatorConnection, groupId: string, partitionCounts: Map<string, number>): Promise<TopicPartitionOffset[]> {
  return (await send(broker, offsetFetchV7(groupId, partitionCounts))) as TopicPartitionOffset[];
}

async function send(broker: CoordinatorConnection, request: ProtocolRequest): Promise<unknown> {
  const { apiKey, apiVersion, apiName } = request.request;
  const unsupported = unsupportedVersion(broker, apiKey, apiName, apiVersion, "exactly-once with one producer per stream thread", "Kafka 2.5 or newer");
  if (unsupported !== null) {
    throw new (protocol().errors.KafkaJSNonRetriableError)(`the broker does not support offsets fenced by group generation: ${unsupported}; upgrade the brokers or set exactlyOnceProducers: "task"`);
  }
  return sendOwnRequest(broker, request);
}

function txnOffsetCommitV3(args: TxnOffsetCommitArgs, member: GroupMetadata): ProtocolRequest {
  const kafkajs = protocol();
  const partition = ({ partition, offset, metadata = null }: TxnOffsetCommitArgs["topics"][number]["partitions"][number]) =>
    new kafkajs.Encoder().writeInt32(partition).writeInt64(String(offset)).writeInt32(-1).writeUVarIntString(metadata).writeUVarInt(0);
  const topic = ({ topic, partitions }: TxnOffsetCommitArgs["topics"][number]) =>
    new kafkajs.Encoder().writeUVarIntString(topic).writeUVarIntArray(partitions.map(partition), "object").writeUVarInt(0);
  return flexibleRequest<number[]>("TxnOffsetCommit", 3, {
    write: (body) =>
      body
        .writeUVarIntString(args.transactionalId)
        .writeUVarIntString(args.groupId)
        .writeInt64(String(args.producerId))
        .writeInt16(args.producerEpoch)
        .writeInt32(member.generationId)
        .writeUVarIntString(member.memberId)
        .writeUVarIntString(member.groupInstanceId)
        .writeUVarIntArray(args.topics.map(topic), "object"),
    read: (body) => {
      const codes: number[] = [];
      readPartitions(body, (partition) => {
        partition.readInt32();
        codes.push(partition.readInt16());
      });
      return codes;
    },
    parse: (codes) => {
      const failed = codes.find((code) => kafkajs.failure(code));
      if (failed !== undefined) throw kafkajs.createErrorFromCode(failed);
      return codes;
    },
  });
}

type FetchedOffset = TopicPartitionOffset & { errorCode: number };

function offsetFetchV7(groupId: string, partitionCounts: Map<string, number>): ProtocolRequest {
  const kafkajs = protocol();
  const topic = ([name, count]: [string, number]) => {
    const encoder = new kafkajs.Encoder().writeUVarIntString(name).writeUVarInt(count + 1);
    for (let p = 0; p < count; p++) encoder.writeInt32(p);
    return encoder.writeUVarInt(0);
  };
  return flexibleRequest<{ errorCode: number; offsets: FetchedOffset[] }>("OffsetFetch", 7, {
    write: (body) =>
      body
        .writeUVarIntString(groupId)
        .writeUVarIntArray([...partitionCounts].map(topic), "object")
        .writeBoolean(true), // require_stable
    read: (body) => {
      const offsets: FetchedOffset[] = [];
      readPartitions(body, (partition, topicName) => {
        const row: FetchedOffset = { topic: topicName, partition: partition.readInt32(), offset: Number(partition.readInt64().toString()), errorCode: 0 };
        partition.readInt32(); // leader epoch
        const metadata = partition.readUVarIntString();
        row.errorCode = partition.readInt16();
        if (metadata) row.metadata = metadata;
        offsets.push(row);
      });
      return { errorCode: body.readInt16(), offsets };
    },
    parse: ({ errorCode, offsets }) => {
      if (kafkajs.failure(errorCode)) throw kafkajs.createErrorFromCode(errorCode);
      const failed = offsets.find((o) => kafkajs.failure(o.errorCode));
      if (failed) throw kafkajs.createErrorFromCode(failed.errorCode);
      return offsets.filter((o) => o.offset >= 0).map(({ errorCode: _, ...committed }) => committed);
    },
  });
}

/**
 * A request of a flexible version: `write` gets the body between the request header's tag
 * buffer and the body's own; `read` gets the answer after its header's tag buffer and the
 * throttle time (every answer here starts with one).
 */
function flexibleRequest<T>(apiName: string, apiVersion: number, body: { write(encoder: Encoder): Encoder; read(decoder: Decoder): T; parse(data: T): unknown }): ProtocolRequest {
  const kafkajs = protocol();
  return {
    request: {
      apiKey: kafkajs.apiKeys[apiName]!,
      apiVersion,
      apiName,
      encode: async () => body.write(new kafkajs.Encoder().writeUVarInt(0)).writeUVarInt(0),
    },
    response: {
      async decode(raw) {
        const decoder = new kafkajs.Decoder(raw);
        skipTags(decoder);
        decoder.readInt32(); // throttle time
        return body.read(decoder);
      },
      parse: async (data) => body.parse(data as T),
    },
  };
}

// A topics array of the answer: per topic its name and a partitions array, each entry
// read by `partition` and followed, as the topic is, by its tag buffer.
function readPartitions(decoder: Decoder, partition: (decoder: Decoder, topic: string) => void): void {
  decoder.readUVarIntArray((topics) => {
    const name = topics.readUVarIntString()!;
    topics.readUVarIntArray((entry) => {
      partition(entry, name);
      skipTags(entry);
    });
    skipTags(topics);
  });
}

// A tag buffer: a count, then per field its tag and its size in bytes (not size + 1).
function skipTags(decoder: Decoder): void {
  for (let fields = decoder.readUVarInt(); fields > 0; fields--) {
    decoder.readUVarInt();
    decoder.forward(decoder.readUVarInt());
  }
}

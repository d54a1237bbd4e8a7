/**
 * Puts the encoding replacements of this folder in place of kafkajs' own modules, in its
 * module cache, before kafkajs loads the modules that capture them (called from
 * ../kafkajs.ts, where the other module replacements are). Each replacement has the
 * contract of the module it replaces: the same arguments, the same result, the same bytes.
 *
 * Why: in a profile of a count over 1M keys, kafkajs' per-record encoding (a zero-filled
 * 512-byte buffer per record, BigInt-backed Long arithmetic for varlongs, offsets and
 * murmur2, a byte-at-a-time CRC) was about a fifth of the CPU; on the consumer, kafkajs copies
 * every fetched record into a Buffer and a Decoder of its own before decoding it. The
 * produce request is written whole (produce-request.ts), records and all.
 */
import { replaceModule } from "../module-replacement.ts";
import { crc32c } from "./crc32c.ts";
import { decodeFetchedMessages, type FetchedMessagesDeps, type MessagesDecoder } from "./fetched-messages.ts";
import { murmur2 } from "./murmur2.ts";
import { type BatchDecoderDeps, decodeRecordBatch, type FetchDecoder } from "./record-batch-decoder.ts";
import { type BatchContext, decodeRecord } from "./record-decoder.ts";
import { produceRequest, type ProduceRequest, type ProduceRequestFields } from "./produce-request.ts";
import { encodeRecord, type RecordFields } from "./record-encoder.ts";
import type { Cursor } from "./varint.ts";

type Require = NodeJS.Require;

export function installEncodingReplacements(require: Require): void {
  // kafkajs' Encoder: the record batch takes records in its shape (`buf`, `offset`, `buffer`).
  const Encoder = require("kafkajs/src/protocol/encoder.js") as { prototype: object };
  const wrap = (buffer: Buffer) => Object.assign(Object.create(Encoder.prototype) as object, { buf: buffer, offset: buffer.length });
  replaceModule(require, "kafkajs/src/protocol/recordBatch/record/v0/index.js", (fields: RecordFields) => encodeRecord(fields, wrap));
  replaceModule(require, "kafkajs/src/protocol/recordBatch/record/v0/decoder.js", (decoder: Cursor, batchContext: BatchContext) => decodeRecord(decoder, batchContext));
  const deps: BatchDecoderDeps = {
    PartialMessageError: (require("kafkajs/src/errors.js") as { KafkaJSPartialMessageError: BatchDecoderDeps["PartialMessageError"] }).KafkaJSPartialMessageError,
    lookupCodecByAttributes: (require("kafkajs/src/protocol/message/compression/index.js") as Pick<BatchDecoderDeps, "lookupCodecByAttributes">).lookupCodecByAttributes,
  };
  replaceModule(require, "kafkajs/src/protocol/recordBatch/v0/decoder.js", (decoder: FetchDecoder) => decodeRecordBatch(decoder, deps));
  const messagesDeps: FetchedMessagesDeps = {
    ...deps,
    Decoder: require("kafkajs/src/protocol/decoder.js") as FetchedMessagesDeps["Decoder"],
    decodeMessageSet: require("kafkajs/src/protocol/messageSet/decoder.js") as FetchedMessagesDeps["decodeMessageSet"],
  };
  replaceModule(require, "kafkajs/src/protocol/requests/fetch/v4/decodeMessages.js", (decoder: MessagesDecoder) => decodeFetchedMessages(decoder, messagesDeps));
  // index.js is the module the record batch requires: the unsigned checksum of a buffer.
  replaceModule(require, "kafkajs/src/protocol/recordBatch/crc32C/index.js", crc32c);
  replaceModule(require, "kafkajs/src/producer/partitioners/default/murmur2.js", murmur2);
  // Loaded after the replacements above, which kafkajs' request (kept for compression) captures.
  const produceV3 = "kafkajs/src/protocol/requests/produce/v3/request.js";
  const kafkajsProduce = require(produceV3) as (fields: ProduceRequestFields) => ProduceRequest;
  const apiKey = (require("kafkajs/src/protocol/requests/apiKeys.js") as { Produce: number }).Produce;
  replaceModule(require, produceV3, produceRequest(apiKey, kafkajsProduce, wrap));
}

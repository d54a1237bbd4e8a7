import { describe, expect, it } from "vitest";
import { FatalError, FencedError, RetriableError } from "../../../lib/errors/index.ts";
import { refusesRecords, translateError } from "../../../lib/kafka/errors.ts";

// The broker's answers that the engine must survive (a broker restart, a transaction still
// holding offsets, a zombie's old generation) against those that must stop it.
describe("translating a broker's error names", () => {
  const as = (type: string) => translateError({ name: "KafkaJSProtocolError", type, message: type }, "fetch");
  it.each(["FETCH_SESSION_ID_NOT_FOUND", "INVALID_FETCH_SESSION_EPOCH", "UNSTABLE_OFFSET_COMMIT", "CONCURRENT_TRANSACTIONS"])("%s is retried", (type) => {
    expect(as(type)).toBeInstanceOf(RetriableError);
  });
  it.each(["ILLEGAL_GENERATION", "UNKNOWN_MEMBER_ID", "PRODUCER_FENCED"])("%s fences the work (rejoin)", (type) => {
    expect(as(type)).toBeInstanceOf(FencedError);
  });
  it("an authorization failure is fatal", () => {
    expect(as("TOPIC_AUTHORIZATION_FAILED")).toBeInstanceOf(FatalError);
  });
});

// Under exactly-once a refusal of the records themselves stops the app instead of a rewind
// that would send them again (commit-transaction.ts).
describe("a refusal of the records themselves", () => {
  const protocol = (type: string) => ({ name: "KafkaJSProtocolError", type, message: type });
  it.each(["MESSAGE_TOO_LARGE", "RECORD_LIST_TOO_LARGE", "INVALID_RECORD", "CORRUPT_MESSAGE", "INVALID_TIMESTAMP"])("%s refuses the records, through the wrappers around it", (type) => {
    expect(refusesRecords(protocol(type))).toBe(true);
    expect(refusesRecords(translateError(protocol(type), "send"))).toBe(true);
    expect(refusesRecords({ name: "KafkaJSNumberOfRetriesExceeded", originalError: protocol(type) })).toBe(true);
  });
  it.each(["NOT_LEADER_OR_FOLLOWER", "REQUEST_TIMED_OUT", "TOPIC_AUTHORIZATION_FAILED"])("%s does not", (type) => {
    expect(refusesRecords(protocol(type))).toBe(false);
  });
  it("nor does an error without a broker's error name", () => {
    expect(refusesRecords(new Error("Connection closed"))).toBe(false);
  });
});

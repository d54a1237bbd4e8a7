import { describe, expect, it } from "vitest";
import { FatalError, FencedError, RetriableError } from "../../../lib/errors/index.ts";
import { translateError } from "../../../lib/kafka/errors.ts";

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

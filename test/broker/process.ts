/** The harness's broker code lives in lib/testing/broker (shipped as sluice/testing); test files import it from here. */
export * from "../../lib/testing/broker/process.ts";

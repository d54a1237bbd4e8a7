// @platformatic/kafka is loaded on first use, not when Sluice is imported: it loads every
// protocol version and the schema-registry support up front, which costs seconds of
// start-up on a busy machine, and an application on the kafkajs client needs none of it.
// Node >= 22.12 loads an ES module with require().
import { createRequire } from "node:module";

type Library = typeof import("@platformatic/kafka");

const require = createRequire(import.meta.url);
let library: Library | null = null;

export function platformatic(): Library {
  return (library ??= require("@platformatic/kafka") as Library);
}

// Kafka protocol constants, here so that naming them loads nothing.
export const READ_UNCOMMITTED = 0;
export const READ_COMMITTED = 1;
export const EARLIEST = -2n;
export const LATEST = -1n;
export const ACKS_ALL = -1;
export const TOPIC_RESOURCE = 2;
export const GROUP_COORDINATOR = 0;

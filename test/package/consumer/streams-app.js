// A service built on the installed package: runs the topology module on a real broker
// until SIGTERM. Env: KAFKA_BOOTSTRAP_SERVERS, APP_ID, INPUT, OUTPUT, STATE_DIR.
// kafkajs is imported first, as an application with its own Kafka code might: Sluice's
// replacements of two kafkajs modules must still reach the copy Sluice uses.
import "kafkajs";
import { createRequire } from "node:module";
import { StreamsApp } from "sluice";
import { topology } from "./topology.js";

const env = (name) => process.env[name] ?? (() => { throw new Error(`streams-app needs ${name}`); })();

// What Sluice's kafkajs loaded: the modules that use the replaced ones list them as children.
const fromSluice = createRequire(import.meta.resolve("sluice"));
const usesReplacement = (user, replaced, name) =>
  fromSluice.cache[fromSluice.resolve(`kafkajs/src/${user}`)]?.children.some(
    (child) => child.id === fromSluice.resolve(`kafkajs/src/${replaced}`) && child.exports.name === name,
  ) ?? false;
console.log(JSON.stringify({
  kafkajsFixes: {
    groupMessagesPerPartition: usesReplacement("producer/sendMessages.js", "producer/groupMessagesPerPartition.js", "groupMessagesPerPartitionLinear"),
    filterAbortedMessages: usesReplacement("consumer/batch.js", "consumer/filterAbortedMessages.js", "filterAbortedMessagesInOffsetOrder"),
  },
}));

const app = new StreamsApp(topology(env("INPUT"), env("OUTPUT")), {
  applicationId: env("APP_ID"),
  bootstrapServers: env("KAFKA_BOOTSTRAP_SERVERS"),
  stateDir: env("STATE_DIR"),
  commitIntervalMs: 200,
});
app.onStateChange((state) => console.log(JSON.stringify({ state })));
await app.start(); // SIGTERM closes it cleanly

/**
 * `make setup`'s jar step: resolves the broker jars of a Kafka line into a folder, with the
 * same code startKafka() uses when its jars are missing.
 * Usage: node test/broker/resolve-jars.ts <3.9|4.1> <output dir>
 */
import { resolve } from "node:path";
import { kafkaLine } from "../../lib/testing/broker/broker-config.ts";
import { resolveBrokerJars } from "../../lib/testing/broker/maven-jars.ts";

const [lineArg, out] = process.argv.slice(2);
if (!lineArg || !out) {
  console.error("Usage: node test/broker/resolve-jars.ts <3.9|4.1> <output dir>");
  process.exit(2);
}
try {
  const libs = resolve(out);
  const count = await resolveBrokerJars(kafkaLine(lineArg), libs);
  console.error(`${count} jars in ${libs}`);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}

import { createRequire } from "node:module";
import "../../../lib/kafka/kafkajs.ts";

const require = createRequire(import.meta.url);

/**
 * kafkajs' own module at `specifier`, loaded beside the replacement lib/kafka/kafkajs.ts put
 * in the module cache: the oracle a replacement is checked against.
 */
export function original<T>(specifier: string): T {
  const filename = require.resolve(specifier);
  const replacement = require.cache[filename];
  delete require.cache[filename];
  try {
    return require(filename) as T;
  } finally {
    if (replacement) require.cache[filename] = replacement;
    else delete require.cache[filename];
  }
}

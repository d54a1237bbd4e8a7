/** docs/testing.md shows start-kafka-example.test.ts as users would write it; this keeps the two the same. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..", "..");

it("docs/testing.md holds start-kafka-example.test.ts as its complete example", () => {
  const docs = readFileSync(join(root, "docs", "testing.md"), "utf8");
  const example = readFileSync(join(import.meta.dirname, "start-kafka-example.test.ts"), "utf8");
  const section = docs.slice(docs.indexOf("## Integration tests against a real broker"));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  expect(block, "a ts code block in the section").toBeDefined();
  expect(block).toBe(example);
});

// Plain ESM JavaScript: runs the topology through sluice/testing's TopologyTestDriver and
// checks every count it emits, and the store, against a count done here. Exit code 0 = pass.
import assert from "node:assert/strict";
import { Serdes } from "sluice";
import { TopologyTestDriver } from "sluice/testing";
import { topology } from "./topology.js";

/** The oracle: how often each (lower-cased) word occurs. */
function expectedCounts(lines) {
  const counts = new Map();
  for (const word of lines.flatMap((line) => line.split(/\s+/).filter(Boolean))) {
    const key = word.toLowerCase();
    counts.set(key, (counts.get(key) ?? 0n) + 1n);
  }
  return counts;
}

const lines = ["the quick brown fox", "The lazy dog", "the end", "Fox"];
const driver = new TopologyTestDriver(topology());
const input = driver.createInputTopic("lines", Serdes.string(), Serdes.string());
const output = driver.createOutputTopic("word-counts", Serdes.string(), Serdes.int64());
for (const line of lines) input.pipeInput(null, line);

const emitted = output.readKeyValuesToList();
const running = new Map();
for (const [word, count] of emitted) {
  running.set(word, (running.get(word) ?? 0n) + 1n);
  assert.equal(count, running.get(word), `count of "${word}" should go up by one per occurrence`);
}
const expected = expectedCounts(lines);
assert.deepEqual(running, expected);
for (const [word, count] of expected) assert.equal(driver.getKeyValueStore("counts-per-word").get(word), count);
driver.close();
console.log(JSON.stringify({ emitted: emitted.length, words: expected.size }));

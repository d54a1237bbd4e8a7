/**
 * How much would reading a fetched batch's keys in one statement save over one prepared
 * point SELECT per key? Measures, on a key-value table like the stores' (WITHOUT ROWID,
 * BLOB keys), the CPU time per key of: point reads of present keys, point reads of absent
 * keys, the same through SqliteKeyValueTable (whose Bloom filter answers absent keys), and
 * one `WHERE key IN (...)` per batch of N keys. No broker; prints a table.
 * Usage: node test/bench/sqlite-reads.ts [rows=1000000] [batch=500]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { TaskDatabase } from "../../lib/state/sqlite/task-database.ts";

const rows = Number(process.argv[2] ?? 1_000_000);
const batch = Number(process.argv[3] ?? 500);
const dir = mkdtempSync(join(tmpdir(), "sluice-sqlite-reads-"));
const key = (n: number) => Buffer.from(`key-${n}`);
const value = Buffer.alloc(8, 1);

const tasks = new TaskDatabase(join(dir, "state.db"));
const table = tasks.keyValueTable("counts");
for (let n = 0; n < rows; n++) table.put(key(n), value, n);
tasks.commit([]);
tasks.close();

const db = new Database(join(dir, "state.db"));
db.pragma("cache_size = -16384");
const point = db.prepare(`SELECT value, timestamp FROM "kv:counts" WHERE key = ?`).raw();
const many = db.prepare(`SELECT key, value, timestamp FROM "kv:counts" WHERE key IN (${Array(batch).fill("?").join(",")})`).raw();
const probes = 200_000;
const present = Array.from({ length: probes }, (_, i) => key((i * 7919) % rows));
const absent = Array.from({ length: probes }, (_, i) => key(rows + i));

function cpuMicrosPerKey(run: () => void): number {
  run(); // warm up
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return Math.round(((used.user + used.system) / probes) * 100) / 100;
}

const results = {
  "point SELECT, present keys": cpuMicrosPerKey(() => present.forEach((k) => point.get(k))),
  "point SELECT, absent keys": cpuMicrosPerKey(() => absent.forEach((k) => point.get(k))),
  [`one IN (...) of ${batch}, present keys`]: cpuMicrosPerKey(() => {
    for (let i = 0; i + batch <= present.length; i += batch) many.all(...present.slice(i, i + batch));
  }),
};
db.close();
const reopened = new TaskDatabase(join(dir, "state.db"));
const store = reopened.keyValueTable("counts");
store.getWithTimestamp(key(0)); // builds the Bloom filter (a scan of the keys, once per open)
Object.assign(results, {
  "SqliteKeyValueTable, present keys": cpuMicrosPerKey(() => present.forEach((k) => store.getWithTimestamp(k))),
  "SqliteKeyValueTable, absent keys (Bloom filter)": cpuMicrosPerKey(() => absent.forEach((k) => store.getWithTimestamp(k))),
});
reopened.close();
rmSync(dir, { recursive: true, force: true });
console.log(`${rows.toLocaleString("en-US")} rows, ${probes.toLocaleString("en-US")} probes; CPU microseconds per key:`);
console.table(Object.entries(results).map(([read, micros]) => ({ read, "CPU µs / key": micros })));

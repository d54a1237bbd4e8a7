/**
 * Interactive queries against every instance, for every key, while the scenario moves tasks:
 * each round asks each live instance's HTTP endpoint for each key's aggregate in the store
 * "agg" (the instance answers from its own store or forwards to the key's owner). The
 * workload's aggregate "count:sum:last" of a key whose sequence numbers run 0, 1, 2, ... is
 * known in closed form, so any answer is checkable on its own: count = last + 1 and
 * sum = last * (last + 1) / 2; and it can never count more records than the input holds.
 * Answers that are not 200 (the owner is rebalancing or restoring) are counted, not judged.
 */
import type { HaCluster } from "./ha-cluster.ts";

export interface Answer {
  t: number;
  instance: string;
  key: string;
  status: number;
  value: string | null;
}

/** Why `value` is no aggregate the workload can produce for a key, or null when it is one. */
export function aggregateProblem(value: unknown): string | null {
  if (typeof value !== "string") return `not a "count:sum:last" string: ${JSON.stringify(value)}`;
  const parts = value.split(":").map(Number);
  if (parts.length !== 3 || parts.some((n) => !Number.isInteger(n))) return `not "count:sum:last": ${value}`;
  const [count, sum, last] = parts as [number, number, number];
  if (count !== last + 1 || sum !== (last * (last + 1)) / 2) return `inconsistent aggregate ${value} (want count = last + 1, sum = last(last+1)/2)`;
  return null;
}

export async function queryKey(port: number, key: string, timeoutMs = 10_000): Promise<{ status: number; value: string | null; error?: string }> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/stores/key-value/get?store=agg&key=${encodeURIComponent(key)}`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await response.json().catch(() => ({}))) as { value?: unknown; error?: string };
    return { status: response.status, value: response.ok ? (body.value as string | null) ?? null : null, ...(body.error ? { error: body.error } : {}) };
  } catch (error) {
    return { status: 0, value: null, error: (error as Error).message };
  }
}

export class KeyQuerier {
  readonly answers: Answer[] = [];
  /** Answers that were 200 but wrong, with why. */
  readonly wrong: string[] = [];
  readonly #cluster: HaCluster;
  readonly #keys: string[];
  #running: Promise<void> | null = null;
  #stop = false;

  constructor(cluster: HaCluster, keys: string[]) {
    this.#cluster = cluster;
    this.#keys = keys;
  }

  start(): void {
    this.#stop = false;
    this.#running = (async () => {
      while (!this.#stop) {
        const round = this.#cluster.live().map((i) => ({ name: i.name, port: i.latest?.httpPort ?? null }));
        for (const { name, port } of round) {
          if (port === null) continue;
          await Promise.all(this.#keys.map(async (key) => {
            const { status, value } = await queryKey(port, key);
            this.answers.push({ t: Date.now(), instance: name, key, status, value });
            if (status !== 200) return;
            // Every key had records before the first round: no answer may say it has none.
            const problem = value === null ? "no value" : aggregateProblem(value);
            if (problem) this.wrong.push(`${name} ${key}: ${problem}`);
          }));
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
  }

  async stop(): Promise<void> {
    this.#stop = true;
    await this.#running;
  }

  /** Keys of `instance` that got a 200 answer in [from, to]. */
  answeredKeys(instance: string, from = 0, to = Infinity): Set<string> {
    return new Set(this.answers.filter((a) => a.instance === instance && a.status === 200 && a.t >= from && a.t <= to).map((a) => a.key));
  }

  /** Answers counted by status, e.g. {"200": 900, "503": 12}. */
  statuses(from = 0, to = Infinity): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const a of this.answers) if (a.t >= from && a.t <= to) counts[a.status] = (counts[a.status] ?? 0) + 1;
    return counts;
  }
}

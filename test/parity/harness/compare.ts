import { isAdvance, type OutputRecord, type OutputSpec, type ScenarioInput } from "./exchange.ts";

/**
 * Compares the two drivers' outputs topic by topic, record by record, in order. Returns
 * null when they agree, else a report of the first difference: both records (or the
 * missing one), the input step that produced it, and the records just before it.
 */
export function firstDifference(input: ScenarioInput, expected: readonly OutputRecord[], actual: readonly OutputRecord[]): string | null {
  for (const spec of input.outputs) {
    const want = expected.filter((r) => r.topic === spec.topic);
    const got = actual.filter((r) => r.topic === spec.topic);
    for (let i = 0; i < Math.max(want.length, got.length); i++) {
      if (want[i] && got[i] && same(spec, want[i]!, got[i]!)) continue;
      return report(input, spec, want, got, i);
    }
  }
  return null;
}

function same(spec: OutputSpec, a: OutputRecord, b: OutputRecord): boolean {
  return (
    a.step === b.step &&
    a.key === b.key &&
    a.value === b.value &&
    a.timestamp === b.timestamp &&
    a.window?.start === b.window?.start &&
    a.window?.end === b.window?.end &&
    (!spec.headers || JSON.stringify(sorted(a.headers)) === JSON.stringify(sorted(b.headers)))
  );
}

function sorted(headers: OutputRecord["headers"]): [string, string | null][] {
  return Object.entries(headers ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function report(input: ScenarioInput, spec: OutputSpec, want: readonly OutputRecord[], got: readonly OutputRecord[], i: number): string {
  const lines = [
    `topic "${spec.topic}": first difference at record #${i} (Kafka Streams wrote ${want.length}, Sluice ${got.length})`,
    `  Kafka Streams: ${describe(want[i])}`,
    `  Sluice:        ${describe(got[i])}`,
  ];
  const step = Math.min(want[i]?.step ?? Infinity, got[i]?.step ?? Infinity);
  if (Number.isFinite(step)) lines.push(`  input step ${step}: ${describeStep(input, step)}`);
  const before = want.slice(Math.max(0, i - 3), i);
  if (before.length) lines.push("  records before it (both sides agree):", ...before.map((r, j) => `    #${i - before.length + j} ${describe(r)}`));
  return lines.join("\n");
}

export function describe(r: OutputRecord | undefined): string {
  if (!r) return "(no record)";
  const window = r.window ? ` window [${r.window.start}, ${r.window.end}]` : "";
  const headers = r.headers ? ` headers ${JSON.stringify(sorted(r.headers))}` : "";
  return `step ${r.step} key ${JSON.stringify(r.key)}${window} value ${JSON.stringify(r.value)} ts ${r.timestamp}${headers}`;
}

function describeStep(input: ScenarioInput, index: number): string {
  const step = input.steps[index];
  if (!step) return "(none)";
  if (isAdvance(step)) return `advance wall clock by ${step.advanceMs} ms`;
  return `pipe to "${step.topic}" key ${JSON.stringify(step.key)} value ${JSON.stringify(step.value)} ts ${step.timestamp}`;
}

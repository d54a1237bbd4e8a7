/**
 * Every file of test/helm/values/bad is refused by `helm template` (the values schema, or a
 * template check for rules that span several values) with the message its first line names:
 *   # expect: <text helm prints>
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { template, valuesDir } from "./chart-tools.ts";

const badDir = join(valuesDir, "bad");
const cases = readdirSync(badDir)
  .filter((f) => f.endsWith(".yaml"))
  .sort()
  .map((file) => {
    const firstLine = readFileSync(join(badDir, file), "utf8").split("\n", 1)[0]!;
    const match = /^# expect: (.+)$/.exec(firstLine);
    if (!match) throw new Error(`${file}: the first line must be "# expect: <message>"`);
    return { file, expected: match[1]! };
  });

describe("bad values", () => {
  it("has cases for the schema and for the template checks", () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
  });

  it.each(cases)("$file is refused: $expected", ({ file, expected }) => {
    const result = template("check", "-f", join(badDir, file));
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(expected);
    expect(result.stdout).toBe("");
  });

  it("reports every schema violation of a file at once", () => {
    const result = template("check", "--set", "replicas=two", "--set", "kafka.processingGuarantee=exactly-once", "--set", "kafka.bootstrapServer=x");
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("at '/replicas': got string, want integer");
    expect(result.stderr).toContain("at '/kafka/processingGuarantee': value must be one of 'at_least_once', 'exactly_once'");
    expect(result.stderr).toContain("at '/kafka': additional properties 'bootstrapServer' not allowed");
  });

  it("refuses a Kubernetes older than Chart.yaml's kubeVersion", () => {
    const result = template("check", "--kube-version", "1.28.0");
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("chart requires kubeVersion: >=1.29.0-0 which is incompatible with Kubernetes v1.28.0");
  });
});

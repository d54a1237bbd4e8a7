/**
 * The rendered manifests against the Kubernetes API's JSON schemas, offline: the schemas
 * ship inside kubernetes-validate (installed by make helm-tools). --strict rejects unknown
 * fields too. Validated against the oldest version Chart.yaml accepts and the newest shipped.
 * Custom resources (KEDA, Prometheus Operator) have no schema there; the other tests
 * check their fields.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { kubernetesValidate, renderYaml } from "./chart-tools.ts";

const versions = ["1.29.0", "1.37.0"];
const customKinds = ["ScaledObject", "ServiceMonitor", "TriggerAuthentication"];
const valuesFiles = ["defaults", "queryable", "compiled-image", "secure-kafka", "keda", "keda-topics", "autoscaler"];

const dir = mkdtempSync(join(tmpdir(), "sluice-chart-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const rendered = valuesFiles.map((name) => {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, renderYaml("orders", [`${name}.yaml`]));
  return file;
});

describe.each(versions)("Kubernetes %s", (version) => {
  it("accepts every rendered manifest", () => {
    const result = kubernetesValidate(version, rendered);
    const output = result.stdout + result.stderr;
    expect(output).not.toContain("ERROR");
    expect(result.status).toBe(0);
    // Only custom resources may lack a schema; a built-in kind without one was not validated.
    const unvalidated = [...output.matchAll(/Couldn't find schema for kind (\S+)/g)].map((m) => m[1]);
    expect(unvalidated.length).toBeGreaterThan(0);
    for (const kind of unvalidated) expect(customKinds).toContain(kind);
  });

  it("rejects a manifest with an unknown field and one with a wrong type", () => {
    const good = renderYaml("timeline", ["queryable.yaml"]);
    const unknownField = good.replace("publishNotReadyAddresses: true", "publishNotReadyAddresses: true\n  clusterIp: None");
    const wrongType = good.replace(/periodSeconds: 10/, "periodSeconds: ten");
    expect(unknownField).not.toBe(good);
    expect(wrongType).not.toBe(good);
    writeFileSync(join(dir, "unknown-field.yaml"), unknownField);
    writeFileSync(join(dir, "wrong-type.yaml"), wrongType);
    const result = kubernetesValidate(version, [join(dir, "unknown-field.yaml"), join(dir, "wrong-type.yaml")]);
    expect(result.status).not.toBe(0);
    expect(result.stdout + result.stderr).toMatch(/unknown-field\.yaml did not validate for resource service\/timeline.*'clusterIp' was unexpected/);
    expect(result.stdout + result.stderr).toMatch(/wrong-type\.yaml did not validate for resource statefulset\/timeline.*'ten' is not of type 'integer'/);
  });
});

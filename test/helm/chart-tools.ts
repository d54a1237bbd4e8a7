/**
 * Runs the chart tools the Makefile installs (make helm-tools): helm, and the Python
 * environment holding kubernetes-validate and PyYAML. Paths come from SLUICE_HELM and
 * SLUICE_KUBE_VALIDATE_ENV, else the default .tools locations.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

export const root = resolve(import.meta.dirname, "../..");
export const chart = join(root, "helm/sluice-service");
export const valuesDir = join(import.meta.dirname, "values");
const helmBinary = process.env["SLUICE_HELM"] ?? join(root, ".tools/go/bin/helm");
const pythonEnv = process.env["SLUICE_KUBE_VALIDATE_ENV"] ?? join(root, ".tools/kubernetes-validate");

export interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], input?: string): Run {
  if (!existsSync(command)) throw new Error(`${command} is missing: run \`make helm-tools\` to install the chart test tools`);
  const result = spawnSync(command, args, { encoding: "utf8", input, maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

export function helm(...args: string[]): Run {
  return run(helmBinary, args);
}

/**
 * The Kubernetes version the tests render for, given explicitly so a render does not
 * depend on how helm was built (a plain `go install` assumes v1.20, which Chart.yaml's
 * kubeVersion refuses; the Makefile's build sets 1.37).
 */
export const defaultKubeVersion = "1.37.0";

/** `helm template <release> <chart>` plus args. */
export function template(release: string, ...args: string[]): Run {
  return helm("template", release, chart, "--namespace", "streams", "--kube-version", defaultKubeVersion, ...args);
}

/** A rendered Kubernetes object. spec stays untyped: a test reading a wrong path gets undefined and fails its assertion. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: any;
}

/** `helm template` with the given values files and --set flags; fails the test with helm's message. */
export function renderYaml(release: string, valuesFiles: string[], sets: string[] = []): string {
  const result = template(release, ...valuesFiles.flatMap((f) => ["-f", join(valuesDir, f)]), ...sets.flatMap((s) => ["--set", s]));
  if (result.status !== 0) throw new Error(`helm template ${release} ${valuesFiles.join(" ")} failed:\n${result.stderr}`);
  return result.stdout;
}

export function parseManifests(yaml: string): K8sObject[] {
  const result = run(join(pythonEnv, "bin/python"), [join(import.meta.dirname, "yaml-to-json.py")], yaml);
  if (result.status !== 0) throw new Error(`rendered output is not valid YAML:\n${result.stderr}`);
  return JSON.parse(result.stdout) as K8sObject[];
}

export function render(release: string, valuesFiles: string[], sets: string[] = []): K8sObject[] {
  return parseManifests(renderYaml(release, valuesFiles, sets));
}

/** The one object of a kind; throws when there is none or several. */
export function one(objects: K8sObject[], kind: string): K8sObject {
  const found = objects.filter((o) => o.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, rendered ${found.length}: ${objects.map((o) => o.kind).join(", ")}`);
  return found[0]!;
}

/** kubernetes-validate --strict over manifest files, against one Kubernetes version. */
export function kubernetesValidate(version: string, files: string[]): Run {
  return run(join(pythonEnv, "bin/kubernetes-validate"), ["--strict", "--quiet", "-k", version, ...files]);
}

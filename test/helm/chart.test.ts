/**
 * What the chart renders for each values file of test/helm/values: the objects, and the
 * links between them that Kubernetes only checks at run time (probe ports, the headless
 * Service behind the application server, selectors, secret references).
 */
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { chart, helm, one, render, valuesDir, type K8sObject } from "./chart-tools.ts";

type EnvVar = { name: string; value?: string; valueFrom?: any };

function container(objects: K8sObject[]) {
  const containers = one(objects, "StatefulSet").spec.template.spec.containers;
  expect(containers).toHaveLength(1);
  return containers[0];
}

function env(objects: K8sObject[]): Map<string, EnvVar> {
  return new Map((container(objects).env as EnvVar[]).map((e) => [e.name, e]));
}

function matches(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}

describe("helm lint", () => {
  it.each(["defaults", "queryable", "compiled-image", "secure-kafka", "keda", "keda-topics"])("passes --strict with %s.yaml", (file) => {
    const result = helm("lint", "--strict", chart, "-f", join(valuesDir, `${file}.yaml`));
    expect(result.stderr + result.stdout).toContain("0 chart(s) failed");
    expect(result.status).toBe(0);
  });
});

describe("defaults", () => {
  const objects = render("orders", ["defaults.yaml"]);
  const sts = one(objects, "StatefulSet");
  const pod = sts.spec.template.spec;

  it("runs node services/<service>/main.ts from the chart's image tag", () => {
    expect(container(objects).command).toEqual(["node", "services/orders/main.ts"]);
    expect(container(objects).args).toBeUndefined();
    expect(container(objects).image).toBe("sluice:0.1.0");
  });

  it("renders no port and no probes when http.port is 0", () => {
    for (const field of ["ports", "startupProbe", "livenessProbe", "readinessProbe"]) expect(container(objects)[field]).toBeUndefined();
    expect(one(objects, "Service").spec.ports).toBeUndefined();
    expect(env(objects).has("SLUICE_APPLICATION_SERVER")).toBe(false);
    expect(env(objects).has("HTTP_PORT")).toBe(false);
  });

  it("takes the group instance id from the pod name through the downward API", () => {
    const vars = env(objects);
    expect(vars.get("POD_NAME")?.valueFrom).toEqual({ fieldRef: { fieldPath: "metadata.name" } });
    expect(vars.get("SLUICE_GROUP_INSTANCE_ID")?.value).toBe("$(POD_NAME)");
    expect(vars.get("PROCESSING_GUARANTEE")?.value).toBe("exactly_once");
    expect(vars.get("STATE_DIR")?.value).toBe("/var/lib/sluice");
  });

  it("keeps state on a volume per pod, writable by the non-root user through fsGroup", () => {
    expect(sts.spec.volumeClaimTemplates.map((t: K8sObject) => t.metadata.name)).toEqual(["state"]);
    expect(container(objects).volumeMounts).toContainEqual({ name: "state", mountPath: "/var/lib/sluice" });
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, fsGroup: 1000 });
    expect(container(objects).securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } });
    // The read-only root needs a writable /tmp.
    expect(container(objects).volumeMounts).toContainEqual({ name: "tmp", mountPath: "/tmp" });
    expect(pod.automountServiceAccountToken).toBe(false);
  });

  it("gives more grace than the commit interval plus close", () => {
    // exactly_once commits every 100 ms; closeSeconds 30.
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(30);
  });

  it("selects its own pods from the headless Service, the PDB and the spread constraint", () => {
    const podLabels = sts.spec.template.metadata.labels;
    expect(matches(sts.spec.selector.matchLabels, podLabels)).toBe(true);
    const service = one(objects, "Service");
    expect(service.spec.clusterIP).toBe("None");
    expect(service.metadata.name).toBe(sts.spec.serviceName);
    expect(matches(service.spec.selector, podLabels)).toBe(true);
    const pdb = one(objects, "PodDisruptionBudget");
    expect(pdb.spec.maxUnavailable).toBe(1);
    expect(matches(pdb.spec.selector.matchLabels, podLabels)).toBe(true);
    expect(pod.topologySpreadConstraints).toHaveLength(1);
    expect(matches(pod.topologySpreadConstraints[0].labelSelector.matchLabels, podLabels)).toBe(true);
  });

  it("creates no autoscaler and no Secret", () => {
    expect(objects.map((o) => o.kind).sort()).toEqual(["PodDisruptionBudget", "Service", "StatefulSet"]);
    expect(sts.spec.replicas).toBe(2);
  });
});

describe("a queryable service with metrics", () => {
  const objects = render("timeline", ["queryable.yaml"]);
  const sts = one(objects, "StatefulSet");
  const service = one(objects, "Service");
  const port = 8080;

  it("points every probe at the container's http port, on the health paths", () => {
    const c = container(objects);
    expect(c.ports).toEqual([{ name: "http", containerPort: port }]);
    expect(c.startupProbe.httpGet).toEqual({ path: "/health/live", port: "http" });
    expect(c.livenessProbe.httpGet).toEqual({ path: "/health/live", port: "http" });
    expect(c.readinessProbe.httpGet).toEqual({ path: "/health/ready", port: "http" });
    expect(env(objects).get("HTTP_PORT")?.value).toBe(String(port));
  });

  it("advertises <pod>.<headless service>.<namespace>.svc:<port> as the application server", () => {
    const vars = env(objects);
    expect(vars.get("SLUICE_APPLICATION_SERVER")?.value).toBe(`$(POD_NAME).${service.metadata.name}.$(POD_NAMESPACE).svc:${port}`);
    expect(vars.get("POD_NAMESPACE")?.valueFrom).toEqual({ fieldRef: { fieldPath: "metadata.namespace" } });
    // Kubernetes expands $(VAR) only from variables defined earlier in the list.
    const names = [...vars.keys()];
    expect(names.indexOf("POD_NAME")).toBeLessThan(names.indexOf("SLUICE_APPLICATION_SERVER"));
    expect(names.indexOf("POD_NAMESPACE")).toBeLessThan(names.indexOf("SLUICE_APPLICATION_SERVER"));
    expect(sts.spec.serviceName).toBe(service.metadata.name);
    expect(service.spec.clusterIP).toBe("None");
    expect(service.spec.publishNotReadyAddresses).toBe(true);
    expect(service.spec.ports).toEqual([{ name: "http", port, targetPort: "http" }]);
  });

  it("annotates pods for Prometheus and scrapes /metrics through a ServiceMonitor", () => {
    expect(sts.spec.template.metadata.annotations).toEqual({ "prometheus.io/scrape": "true", "prometheus.io/port": String(port), "prometheus.io/path": "/metrics" });
    const monitor = one(objects, "ServiceMonitor");
    expect(monitor.metadata.labels?.["release"]).toBe("prometheus");
    expect(matches(monitor.spec.selector.matchLabels, service.metadata.labels)).toBe(true);
    expect(monitor.spec.endpoints).toEqual([{ port: "http", path: "/metrics", interval: "30s" }]);
  });

  it("passes the commit interval, the settings and minAvailable through", () => {
    const vars = env(objects);
    expect(vars.get("COMMIT_INTERVAL_MS")?.value).toBe("1000");
    expect(vars.get("TWEETS_TOPIC")?.value).toBe("tweets");
    expect(container(objects).command).toEqual(["node", "services/timeline/main.ts"]);
    expect(one(objects, "PodDisruptionBudget").spec).toMatchObject({ minAvailable: 2 });
    expect(one(objects, "PodDisruptionBudget").spec.maxUnavailable).toBeUndefined();
  });
});

describe("a compiled image", () => {
  const objects = render("orders", ["compiled-image.yaml"]);
  const pod = one(objects, "StatefulSet").spec.template.spec;

  it("runs the command and args from values, pinned by digest", () => {
    expect(container(objects).command).toEqual(["node", "--enable-source-maps"]);
    expect(container(objects).args).toEqual(["dist/services/orders/main.js"]);
    expect(container(objects).image).toBe("registry.example.com/team/orders@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
    expect(pod.imagePullSecrets).toEqual([{ name: "registry-credentials" }]);
  });

  it("passes scheduling settings through and fills in the selector of a spread constraint without one", () => {
    expect(pod.nodeSelector).toEqual({ "kubernetes.io/arch": "amd64" });
    expect(pod.tolerations[0]).toMatchObject({ key: "dedicated", effect: "NoSchedule" });
    expect(pod.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution).toHaveLength(1);
    const [zone, host] = pod.topologySpreadConstraints;
    expect(zone.labelSelector.matchLabels).toEqual(one(objects, "StatefulSet").spec.selector.matchLabels);
    expect(host.labelSelector.matchLabels).toEqual({ "app.kubernetes.io/component": "orders" });
    const meta = one(objects, "StatefulSet").spec.template.metadata;
    expect(meta.annotations).toEqual({ "example.com/team": "payments" });
    expect(meta.labels["cost-center"]).toBe("42");
    expect(container(objects).resources.limits.memory).toBe("2Gi");
  });

  it("uses an emptyDir for state without persistence", () => {
    expect(one(objects, "StatefulSet").spec.volumeClaimTemplates).toBeUndefined();
    expect(pod.volumes).toContainEqual({ name: "state", emptyDir: {} });
  });
});

/**
 * The chart's lag autoscaler: a Deployment running services/autoscaler/main.ts that owns the
 * StatefulSet's replica count, with RBAC limited to that StatefulSet's scale, the service's
 * Kafka credentials by reference, and labels the service's selectors never match.
 */
import { describe, expect, it } from "vitest";
import { one, render, type K8sObject } from "./chart-tools.ts";

const envOf = (container: { env: { name: string }[] }) => new Map(container.env.map((e) => [e.name, e as { name: string; value?: string; valueFrom?: any }]));
const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);

describe("the autoscaler", () => {
  const objects = render("orders", ["autoscaler.yaml"]);
  const sts = one(objects, "StatefulSet");
  const deployment = one(objects, "Deployment");
  const pod = deployment.spec.template.spec;
  const [container] = pod.containers;
  const vars = envOf(container);

  it("is off by default", () => {
    const kinds = render("orders", ["defaults.yaml"]).map((o) => o.kind);
    for (const kind of ["Deployment", "ServiceAccount", "Role", "RoleBinding"]) expect(kinds).not.toContain(kind);
    expect(one(render("orders", ["defaults.yaml"]), "StatefulSet").spec.replicas).toBe(2);
  });

  it("runs one pod of the service's image, and the StatefulSet leaves its replica count to it", () => {
    expect(deployment.spec).toMatchObject({ replicas: 1, strategy: { type: "Recreate" } });
    expect(container.image).toBe(sts.spec.template.spec.containers[0].image);
    expect(container.command).toEqual(["node", "services/autoscaler/main.ts"]);
    expect(sts.spec.replicas).toBeUndefined();
    const compiled = one(render("orders", ["autoscaler.yaml"], ["autoscaler.command={node,dist/services/autoscaler/main.js}", "autoscaler.args={--verbose}"]), "Deployment");
    expect(compiled.spec.template.spec.containers[0]).toMatchObject({ command: ["node", "dist/services/autoscaler/main.js"], args: ["--verbose"] });
  });

  it("is configured from the values through the environment the service reads", () => {
    const value = (name: string) => vars.get(name)?.value;
    expect(value("AUTOSCALER_STATEFULSET")).toBe(sts.metadata.name);
    expect(value("APPLICATION_ID")).toBe("orders");
    expect(value("KAFKA_BOOTSTRAP_SERVERS")).toBe("kafka:9092");
    expect([value("AUTOSCALER_MIN_REPLICAS"), value("AUTOSCALER_MAX_REPLICAS"), value("AUTOSCALER_TARGET_LAG"), value("AUTOSCALER_TOLERANCE")]).toEqual(["2", "12", "5000", "0.2"]);
    expect([value("AUTOSCALER_SCALE_DOWN_STABILIZATION_SECONDS"), value("AUTOSCALER_POLL_INTERVAL_SECONDS"), value("AUTOSCALER_DRY_RUN")]).toEqual(["900", "15", "false"]);
    expect(value("AUTOSCALER_TOPICS")).toBe("orders,orders-retry");
    expect(vars.get("POD_NAMESPACE")?.valueFrom).toEqual({ fieldRef: { fieldPath: "metadata.namespace" } });
    const dry = envOf(one(render("orders", ["autoscaler.yaml"], ["autoscaler.dryRun=true", "autoscaler.topics=null"]), "Deployment").spec.template.spec.containers[0]);
    expect(dry.get("AUTOSCALER_DRY_RUN")?.value).toBe("true");
    expect(dry.has("AUTOSCALER_TOPICS")).toBe(false);
  });

  it("reads Kafka with the service's credentials, by reference", () => {
    const service = envOf(sts.spec.template.spec.containers[0]);
    for (const name of ["SLUICE_SASL_MECHANISM", "SLUICE_SASL_USERNAME", "SLUICE_SASL_PASSWORD", "SLUICE_TLS", "SLUICE_TLS_CA_FILE", "SLUICE_TLS_CERT_FILE", "SLUICE_TLS_KEY_FILE"]) {
      expect(vars.get(name), name).toEqual(service.get(name));
    }
    expect(vars.get("SLUICE_SASL_PASSWORD")?.valueFrom.secretKeyRef).toEqual({ name: "orders-kafka-credentials", key: "password" });
    expect(container.volumeMounts).toEqual([{ name: "kafka-tls", mountPath: "/etc/sluice/tls", readOnly: true }]);
    expect(pod.volumes).toEqual([{ name: "kafka-tls", secret: { secretName: "orders-kafka-tls" } }]);
  });

  it("may get and update the scale of this release's StatefulSet and nothing else", () => {
    const account = one(objects, "ServiceAccount");
    const role = one(objects, "Role");
    const binding = one(objects, "RoleBinding");
    expect(pod.serviceAccountName).toBe(account.metadata.name);
    expect(pod.automountServiceAccountToken).toBe(true);
    expect(sts.spec.template.spec.automountServiceAccountToken).toBe(false);
    expect((role as K8sObject & { rules: unknown }).rules).toEqual([
      { apiGroups: ["apps"], resources: ["statefulsets/scale"], resourceNames: [sts.metadata.name], verbs: ["get", "patch", "update"] },
      { apiGroups: ["apps"], resources: ["statefulsets"], resourceNames: [sts.metadata.name], verbs: ["get"] },
    ]);
    const { roleRef, subjects } = binding as K8sObject & { roleRef: unknown; subjects: unknown };
    expect(roleRef).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: role.metadata.name });
    expect(subjects).toEqual([{ kind: "ServiceAccount", name: account.metadata.name, namespace: "streams" }]);
  });

  it("is selected by its Deployment and by none of the service's selectors", () => {
    const labels = deployment.spec.template.metadata.labels as Record<string, string>;
    expect(matches(deployment.spec.selector.matchLabels, labels)).toBe(true);
    expect(matches(sts.spec.selector.matchLabels, labels)).toBe(false);
    expect(matches(one(objects, "Service").spec.selector, labels)).toBe(false);
    expect(matches(one(objects, "PodDisruptionBudget").spec.selector.matchLabels, labels)).toBe(false);
    // The other way round: the autoscaler's Deployment does not claim the service's pods.
    expect(matches(deployment.spec.selector.matchLabels, sts.spec.template.metadata.labels)).toBe(false);
  });
});

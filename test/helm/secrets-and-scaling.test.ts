/**
 * Secrets reach the pod and KEDA only by reference; KEDA scales the StatefulSet on the
 * application's consumer group; names fit the StatefulSet limit; the grace-period check
 * sits exactly at commit interval plus close.
 */
import { describe, expect, it } from "vitest";
import { one, render, renderYaml, type K8sObject } from "./chart-tools.ts";

function containerOf(objects: K8sObject[]) {
  return one(objects, "StatefulSet").spec.template.spec.containers[0];
}

function envOf(objects: K8sObject[]): Map<string, { value?: string; valueFrom?: any }> {
  return new Map(containerOf(objects).env.map((e: { name: string }) => [e.name, e]));
}

describe("secrets by reference", () => {
  const objects = render("orders", ["secure-kafka.yaml"]);
  const vars = envOf(objects);

  it("reads the SASL password and other secrets through secretKeyRef, never as a value", () => {
    expect(vars.get("SLUICE_SASL_PASSWORD")).toEqual({ name: "SLUICE_SASL_PASSWORD", valueFrom: { secretKeyRef: { name: "orders-kafka-credentials", key: "sasl-password" } } });
    expect(vars.get("WEBHOOK_TOKEN")?.valueFrom).toEqual({ secretKeyRef: { name: "orders-webhook", key: "token" } });
    expect(vars.get("SLUICE_SASL_MECHANISM")?.value).toBe("scram-sha-512");
    expect(vars.get("SLUICE_SASL_USERNAME")?.value).toBe("orders-app");
    expect(objects.some((o) => o.kind === "Secret")).toBe(false);
  });

  it("mounts the TLS secret read-only and names files that the secret's keys produce", () => {
    const pod = one(objects, "StatefulSet").spec.template.spec;
    const mount = containerOf(objects).volumeMounts.find((m: { name: string }) => m.name === "kafka-tls");
    expect(mount).toEqual({ name: "kafka-tls", mountPath: "/etc/sluice/tls", readOnly: true });
    expect(pod.volumes).toContainEqual({ name: "kafka-tls", secret: { secretName: "orders-kafka-tls" } });
    expect(vars.get("SLUICE_TLS_CA_FILE")?.value).toBe(`${mount.mountPath}/ca.crt`);
    expect(vars.get("SLUICE_TLS_CERT_FILE")?.value).toBe(`${mount.mountPath}/tls.crt`);
    expect(vars.get("SLUICE_TLS_KEY_FILE")?.value).toBe(`${mount.mountPath}/tls.key`);
  });

  it("renders no secret material at all", () => {
    const yaml = renderYaml("orders", ["secure-kafka.yaml"]);
    expect(yaml).not.toMatch(/BEGIN|password:\s*\S/i);
  });
});

describe("KEDA", () => {
  const objects = render("orders", ["keda.yaml"]);
  const sts = one(objects, "StatefulSet");
  const scaled = one(objects, "ScaledObject");

  it("scales the StatefulSet, which leaves its replica count to KEDA", () => {
    expect(scaled.apiVersion).toBe("keda.sh/v1alpha1");
    expect(scaled.spec.scaleTargetRef).toEqual({ apiVersion: "apps/v1", kind: "StatefulSet", name: sts.metadata.name });
    expect(sts.spec.replicas).toBeUndefined();
    expect(scaled.spec).toMatchObject({ minReplicaCount: 2, maxReplicaCount: 12, cooldownPeriod: 300 });
  });

  it("watches the lag of the application's consumer group on every topic it consumes", () => {
    expect(scaled.spec.triggers).toHaveLength(1);
    const [trigger] = scaled.spec.triggers;
    expect(trigger.type).toBe("kafka");
    expect(trigger.metadata).toMatchObject({ consumerGroup: "orders", bootstrapServers: "kafka:9092", lagThreshold: "5000", allowIdleConsumers: "false", sasl: "scram_sha256", tls: "enable" });
    expect(trigger.metadata.topic).toBeUndefined();
    // KEDA reads metadata values as strings.
    for (const value of Object.values(trigger.metadata)) expect(typeof value).toBe("string");
  });

  it("authenticates with the same secrets the service uses", () => {
    const auth = one(objects, "TriggerAuthentication");
    expect(one(objects, "ScaledObject").spec.triggers[0].authenticationRef).toEqual({ name: auth.metadata.name });
    const password = envOf(objects).get("SLUICE_SASL_PASSWORD")?.valueFrom.secretKeyRef;
    expect(auth.spec.secretTargetRef).toContainEqual({ parameter: "password", name: password.name, key: password.key });
    expect(auth.spec.secretTargetRef).toContainEqual({ parameter: "ca", name: "orders-kafka-tls", key: "ca.crt" });
    expect(auth.spec.env).toEqual([{ parameter: "username", name: "SLUICE_SASL_USERNAME", containerName: containerOf(objects).name }]);
  });

  it("adds one trigger per named topic, which allows scaling to zero", () => {
    const topics = one(render("orders", ["keda-topics.yaml"]), "ScaledObject");
    expect(topics.spec.minReplicaCount).toBe(0);
    expect(topics.spec.triggers.map((t: { metadata: { topic: string } }) => t.metadata.topic)).toEqual(["orders", "orders-retry"]);
    expect(topics.spec.triggers[0].authenticationRef).toBeUndefined();
  });
});

describe("names", () => {
  const nameOf = (release: string, sets: string[] = []) => one(render(release, ["defaults.yaml"], sets), "StatefulSet").metadata.name;
  // Helm allows release names of up to 53 characters.
  const long = "payments-settlement-reconciliation-eu-west-prod-blue";

  it("is <release>-<service>, or the release name when it names the service", () => {
    expect(nameOf("prod")).toBe("prod-orders");
    expect(nameOf("orders-eu")).toBe("orders-eu");
  });

  it("keeps a 52-character name and cuts a longer one to 52 with a hash of the whole name", () => {
    expect(nameOf("x".repeat(45))).toBe(`${"x".repeat(45)}-orders`);
    const cut = nameOf(long);
    expect(cut).toHaveLength(52);
    expect(cut.startsWith(`${long}-orders`.slice(0, 45))).toBe(true);
    expect(cut).toMatch(/-[0-9a-f]{6}$/);
    // Same prefix, different release: still different names; and stable across renders.
    expect(nameOf(`${long}x`)).not.toBe(cut);
    expect(nameOf(long)).toBe(cut);
    // A pod's controller-revision-hash label is <name>-<10 characters>: at most 63.
    expect(`${cut}-0123456789`.length).toBeLessThanOrEqual(63);
  });

  it("gives every object of a release the same name", () => {
    const objects = render(long, ["keda.yaml"], ["metrics.enabled=true", "metrics.serviceMonitor.enabled=true", "http.port=8080"]);
    expect(new Set(objects.map((o) => o.metadata.name)).size).toBe(1);
    expect(objects.map((o) => o.kind).sort()).toEqual(["PodDisruptionBudget", "ScaledObject", "Service", "ServiceMonitor", "StatefulSet", "TriggerAuthentication"]);
  });
});

describe("grace period", () => {
  it("renders at one second above commit interval plus close", () => {
    const sets = ["kafka.processingGuarantee=at_least_once", "shutdown.closeSeconds=30"];
    expect(one(render("orders", ["defaults.yaml"], [...sets, "terminationGracePeriodSeconds=61"]), "StatefulSet").spec.template.spec.terminationGracePeriodSeconds).toBe(61);
    expect(() => render("orders", ["defaults.yaml"], [...sets, "terminationGracePeriodSeconds=60"])).toThrow(/must exceed the commit interval \(30 s\) plus shutdown.closeSeconds \(30 s\)/);
  });
});

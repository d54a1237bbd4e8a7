/**
 * What the chart renders for static membership (docs/deploy.md, section 6): the pod name as
 * the group instance id, the session timeout a rolling restart must fit in, and a state
 * volume per pod, so an instance id always comes back with its own state directory.
 */
import { describe, expect, it } from "vitest";
import { one, render, type K8sObject } from "./chart-tools.ts";

type EnvVar = { name: string; value?: string; valueFrom?: unknown };

function env(objects: K8sObject[]): Map<string, EnvVar> {
  const containers = one(objects, "StatefulSet").spec.template.spec.containers as { env: EnvVar[] }[];
  return new Map(containers[0]!.env.map((e) => [e.name, e]));
}

describe("static membership", () => {
  const objects = render("orders", ["defaults.yaml"]);

  it("is on by default, with the pod name as instance id and a 45 s session timeout", () => {
    const vars = env(objects);
    expect(vars.get("SLUICE_GROUP_INSTANCE_ID")?.value).toBe("$(POD_NAME)");
    expect(vars.get("SESSION_TIMEOUT_MS")?.value).toBe("45000");
    // $(POD_NAME) is expanded only from variables defined before it.
    const names = [...vars.keys()];
    expect(names.indexOf("POD_NAME")).toBeLessThan(names.indexOf("SLUICE_GROUP_INSTANCE_ID"));
  });

  it("keeps each instance id's state on its own claim: pods and claims of a StatefulSet share the ordinal", () => {
    const sts = one(objects, "StatefulSet");
    // Pod <sts>-<n> (its instance id) mounts claim state-<sts>-<n> at the state directory.
    expect(sts.spec.volumeClaimTemplates.map((t: K8sObject) => t.metadata.name)).toEqual(["state"]);
    expect(sts.spec.template.spec.containers[0].volumeMounts).toContainEqual({ name: "state", mountPath: "/var/lib/sluice" });
    expect(env(objects).get("STATE_DIR")?.value).toBe("/var/lib/sluice");
  });

  it("sets neither variable when both are turned off", () => {
    const vars = env(render("orders", ["defaults.yaml"], ["kafka.staticMembership=false", "kafka.sessionTimeoutMs=0"]));
    expect(vars.has("SLUICE_GROUP_INSTANCE_ID")).toBe(false);
    expect(vars.has("SESSION_TIMEOUT_MS")).toBe(false);
  });

  it("passes a chosen session timeout through", () => {
    expect(env(render("orders", ["defaults.yaml"], ["kafka.sessionTimeoutMs=90000"])).get("SESSION_TIMEOUT_MS")?.value).toBe("90000");
  });
});

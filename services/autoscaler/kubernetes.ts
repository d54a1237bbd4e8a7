/**
 * The StatefulSet's replica count through its scale subresource
 * (/apis/apps/v1/namespaces/{ns}/statefulsets/{name}/scale), the same door `kubectl scale`
 * and the HPA use: the Role needs only get and update on statefulsets/scale.
 */
import { ApiException, AppsV1Api, KubeConfig } from "@kubernetes/client-node";

export interface ScaleReading {
  replicas: number;
  /** Passed back on write, so a change made in between (kubectl, helm) is not overwritten. */
  resourceVersion: string;
}

export interface StatefulSetScale {
  read(): Promise<ScaleReading>;
  /** Sets the replica count if the scale is still at `seen`; a ScaleConflictError otherwise. */
  write(replicas: number, seen: ScaleReading): Promise<void>;
}

/** Someone else changed the scale since it was read: decide again on the next poll. */
export class ScaleConflictError extends Error {}

/** The kubeconfig the process runs with: $KUBECONFIG, ~/.kube/config, or the pod's ServiceAccount. */
export function defaultKubeConfig(): KubeConfig {
  const config = new KubeConfig();
  config.loadFromDefault();
  return config;
}

export function statefulSetScale(config: KubeConfig, namespace: string, name: string): StatefulSetScale {
  const api = config.makeApiClient(AppsV1Api);
  const what = `the scale of StatefulSet ${namespace}/${name}`;
  return {
    async read() {
      const scale = await explained(`read ${what}`, namespace, () => api.readNamespacedStatefulSetScale({ name, namespace }));
      return { replicas: scale.spec?.replicas ?? 0, resourceVersion: scale.metadata?.resourceVersion ?? "" };
    },
    async write(replicas, seen) {
      // A replace carrying the resourceVersion read: the API server refuses it (409) when
      // the scale changed since, where a patch would silently win.
      const body = { apiVersion: "autoscaling/v1", kind: "Scale", metadata: { name, namespace, resourceVersion: seen.resourceVersion }, spec: { replicas } };
      await explained(`set ${what} to ${replicas}`, namespace, () => api.replaceNamespacedStatefulSetScale({ name, namespace, body }));
    },
  };
}

async function explained<T>(action: string, namespace: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof ApiException)) throw new Error(`could not ${action}: ${(error as Error).message}`, { cause: error });
    const status = error.code;
    if (status === 409) throw new ScaleConflictError(`could not ${action}: it changed since it was read (409 Conflict)`, { cause: error });
    const hint =
      status === 401
        ? "the API server did not accept the credentials: check the ServiceAccount token (automountServiceAccountToken) or the kubeconfig"
        : status === 403
          ? `the ServiceAccount may not: its Role in ${namespace} needs get and update on statefulsets/scale (the chart's autoscaler Role grants them)`
          : status === 404
            ? "no such StatefulSet: check AUTOSCALER_STATEFULSET and AUTOSCALER_NAMESPACE"
            : "the API server refused the request";
    throw new Error(`could not ${action}: HTTP ${status}; ${hint}`, { cause: error });
  }
}

/**
 * A local stand-in for the Kubernetes API server, serving the one resource the autoscaler
 * uses: the scale subresource of StatefulSets (GET, and PUT with the API server's
 * resourceVersion check), behind a bearer token, answering errors as it does (a Status).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";

export interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: unknown;
}

export interface FakeApiServer {
  url: string;
  token: string;
  requests: SeenRequest[];
  /** Replica count per "namespace/name"; only these StatefulSets exist. */
  replicas: Map<string, number>;
  /** Changes a StatefulSet's scale behind the client's back (a kubectl scale). */
  scaleBehindTheBack(key: string, replicas: number): void;
  kubeConfig(token?: string): KubeConfig;
  close(): Promise<void>;
}

const scalePath = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/statefulsets\/([^/]+)\/scale$/;

export async function startFakeApiServer(statefulSets: Record<string, number>, token = "test-token-7f3a"): Promise<FakeApiServer> {
  const replicas = new Map(Object.entries(statefulSets));
  const versions = new Map([...replicas.keys()].map((k) => [k, 1]));
  const requests: SeenRequest[] = [];
  const scaleOf = (namespace: string, name: string) => {
    const key = `${namespace}/${name}`;
    return {
      apiVersion: "autoscaling/v1",
      kind: "Scale",
      metadata: { name, namespace, resourceVersion: String(versions.get(key)) },
      spec: { replicas: replicas.get(key) },
      status: { replicas: replicas.get(key), selector: `app=${name}` },
    };
  };
  const set = (key: string, count: number) => {
    replicas.set(key, count);
    versions.set(key, versions.get(key)! + 1);
  };

  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    const path = new URL(request.url!, "http://localhost").pathname;
    requests.push({ method: request.method!, path, authorization: request.headers.authorization, contentType: request.headers["content-type"], body });
    const reply = (status: number, payload: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(payload));
    };
    const failure = (code: number, reason: string, message: string) => reply(code, { kind: "Status", apiVersion: "v1", status: "Failure", reason, message, code });

    if (request.headers.authorization !== `Bearer ${token}`) return failure(401, "Unauthorized", "Unauthorized");
    const match = scalePath.exec(path);
    if (!match) return failure(404, "NotFound", `the server could not find the requested resource ${path}`);
    const [, namespace, name] = match as unknown as [string, string, string];
    const key = `${namespace}/${name}`;
    if (!replicas.has(key)) return failure(404, "NotFound", `statefulsets.apps "${name}" not found`);

    if (request.method === "GET") return reply(200, scaleOf(namespace, name));
    if (request.method === "PUT") {
      const scale = body as { kind?: string; metadata?: { resourceVersion?: string }; spec?: { replicas?: unknown } };
      if (scale?.kind !== "Scale" || typeof scale.spec?.replicas !== "number") return failure(400, "BadRequest", "body is not a Scale with spec.replicas");
      if (scale.metadata?.resourceVersion !== String(versions.get(key))) {
        return failure(409, "Conflict", `Operation cannot be fulfilled on statefulsets.apps "${name}": the object has been modified`);
      }
      set(key, scale.spec.replicas);
      return reply(200, scaleOf(namespace, name));
    }
    return failure(405, "MethodNotAllowed", `${request.method} is not allowed`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    token,
    requests,
    replicas,
    scaleBehindTheBack: set,
    kubeConfig(withToken = token) {
      const config = new KubeConfig();
      config.loadFromOptions({
        // The client speaks plain HTTP only with TLS verification off; the server is local.
        clusters: [{ name: "local", server: url, skipTLSVerify: true }],
        users: [{ name: "autoscaler", token: withToken }],
        contexts: [{ name: "local", cluster: "local", user: "autoscaler" }],
        currentContext: "local",
      });
      return config;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A kubeconfig file's text for the server, for a process started with KUBECONFIG. */
export function kubeConfigFile(server: FakeApiServer): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "local", cluster: { server: server.url, "insecure-skip-tls-verify": true } }],
    users: [{ name: "autoscaler", user: { token: server.token } }],
    contexts: [{ name: "local", context: { cluster: "local", user: "autoscaler" } }],
    "current-context": "local",
  });
}

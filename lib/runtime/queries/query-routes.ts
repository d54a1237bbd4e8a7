import type { IncomingMessage, ServerResponse } from "node:http";
import { ConfigError, RetriableError } from "../../errors/index.ts";
import { json, type Router } from "../../observability/index.ts";
import type { Serde } from "../../serdes/index.ts";
import { changelogTopicName, compareBytes } from "../../state/index.ts";
import { hostText, type HostInfo } from "./cluster-view.ts";
import { keyFromBase64, KeyTextError, parseKeyText, renderJson } from "./key-text.ts";
import type { LocalStores, QueryableStoreType } from "./local-stores.ts";
import { askOwner, passThrough, QueryHttpError, SERVED_BY_HEADER, wasForwarded } from "./owner-forwarding.ts";
import type { QueryMetadata } from "./query-metadata.ts";
import { readLocally, type QueryParams } from "./local-reads.ts";

export interface QueryRoutesContext {
  stores: LocalStores;
  metadata: QueryMetadata;
  applicationId: string;
  self: HostInfo;
}

/** One read: which kind of store it needs and whether one key decides its owner. */
interface Endpoint {
  path: string;
  type: QueryableStoreType;
  keyed: boolean;
}

const ENDPOINTS: Endpoint[] = [
  { path: "/stores/key-value/get", type: "keyValue", keyed: true },
  { path: "/stores/key-value/range", type: "keyValue", keyed: false },
  { path: "/stores/key-value/all", type: "keyValue", keyed: false },
  { path: "/stores/window/fetch", type: "window", keyed: true },
  { path: "/stores/window/all", type: "window", keyed: false },
  { path: "/stores/session/fetch", type: "session", keyed: true },
];

/**
 * The interactive-query routes of an instance's HTTP server (docs/api.md, "Interactive
 * queries"). A keyed read is answered here when this instance runs the key's task and
 * forwarded to the owner otherwise; a read of every key asks every instance that runs a
 * task of the store and concatenates their answers.
 */
export function addQueryRoutes(router: Router, context: QueryRoutesContext): void {
  for (const endpoint of ENDPOINTS) {
    router.get(endpoint.path, (request, response, url) => answer(context, endpoint, request, response, url));
  }
  router.get("/stores/metadata", (request, response, url) => answer(context, null, request, response, url));
}

async function answer(context: QueryRoutesContext, endpoint: Endpoint | null, request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
  try {
    const store = url.searchParams.get("store");
    if (!store) throw new QueryHttpError(400, "give the store to read: ?store=<name>");
    try {
      context.stores.checkKnown(store);
    } catch (error) {
      throw new QueryHttpError(404, (error as Error).message);
    }
    const params = parseParams(context, store, url);
    if (endpoint === null) return json(response, 200, metadataAnswer(context, store, params));
    if (endpoint.keyed) await answerKeyed(context, endpoint, params, request, response, url);
    else await answerEveryKey(context, endpoint, params, response, url);
  } catch (error) {
    const { status, body } = errorAnswer(error);
    json(response, status, body);
  }
}

function errorAnswer(error: unknown): { status: number; body: Record<string, unknown> } {
  if (error instanceof QueryHttpError) return { status: error.status, body: { error: error.message, ...error.details } };
  if (error instanceof KeyTextError || error instanceof RangeError || error instanceof ConfigError) return { status: 400, body: { error: (error as Error).message } };
  if (error instanceof RetriableError) return { status: 503, body: { error: error.message, retriable: true } };
  // A serde that cannot read the key's text (a SerdeError) is the request's fault too.
  if ((error as Error).name === "SerdeError") return { status: 400, body: { error: (error as Error).message } };
  return { status: 500, body: { error: (error as Error).message } };
}

function parseParams(context: QueryRoutesContext, store: string, url: URL): QueryParams {
  const serde = context.metadata.keySerdeOf(store);
  const topic = changelogTopicName(context.applicationId, store);
  const keyOf = (textName: string, base64Name: string): unknown => {
    const text = url.searchParams.get(textName);
    const base64 = url.searchParams.get(base64Name);
    if (text !== null && base64 !== null) throw new QueryHttpError(400, `give either ${textName} or ${base64Name}, not both`);
    if (text === null && base64 === null) return null;
    if (!serde) throw new QueryHttpError(400, `store "${store}" has no key serde known to this instance`);
    return base64 !== null ? keyFromBase64(base64, serde, topic) : parseKeyText(text!, serde);
  };
  const params: QueryParams = {
    store,
    key: keyOf("key", "keyBase64"),
    fromKey: keyOf("from", "fromBase64"),
    toKey: keyOf("to", "toBase64"),
    time: time(url, "time"),
    timeFrom: time(url, "timeFrom"),
    timeTo: time(url, "timeTo"),
    earliestEnd: time(url, "earliestEnd"),
    latestStart: time(url, "latestStart"),
  };
  if (params.timeFrom !== null && params.timeTo !== null && params.timeFrom > params.timeTo) {
    throw new QueryHttpError(400, `timeFrom ${params.timeFrom} is after timeTo ${params.timeTo}; both bounds are inclusive window starts, give timeFrom <= timeTo`);
  }
  if (serde && params.fromKey !== null && params.toKey !== null) {
    if (compareBytes(serde.serialize(topic, params.fromKey)!, serde.serialize(topic, params.toKey)!) > 0) {
      throw new QueryHttpError(400, "from is after to in the store's key order (serialized bytes); give from <= to");
    }
  }
  return params;
}

function time(url: URL, name: string): number | null {
  const text = url.searchParams.get(name);
  if (text === null) return null;
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw new QueryHttpError(400, `${name} must be a time in epoch ms (an integer), got ${JSON.stringify(text)}`);
  return Number(text);
}

function metadataAnswer(context: QueryRoutesContext, store: string, params: QueryParams): Record<string, unknown> {
  if (params.key === null) return { store, hosts: context.metadata.streamsMetadataForStore(store) };
  return { store, ...context.metadata.queryMetadataForKey(store, params.key, context.metadata.keySerdeOf(store) as Serde<unknown>) };
}

async function answerKeyed(context: QueryRoutesContext, endpoint: Endpoint, params: QueryParams, request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
  if (params.key === null) throw new QueryHttpError(400, `${endpoint.path} reads one key: give key=<key> (or keyBase64=<serialized key>)`);
  const where = context.metadata.queryMetadataForKey(params.store, params.key, context.metadata.keySerdeOf(params.store) as Serde<unknown>);
  const placement = { partition: where.partition, taskId: where.taskId };
  if (where.active === null) {
    throw new QueryHttpError(503, `no instance runs task ${where.taskId} of store "${params.store}" right now (a rebalance, or its owner is gone); retry shortly`, {
      owner: null,
      ...placement,
    });
  }
  if (context.metadata.isSelf(where.active)) return answerHere(context, endpoint, params, response);
  const forwardedFrom = wasForwarded(request);
  if (forwardedFrom !== null) {
    // The two instances' views of the assignment disagree (a rebalance in flight): no second hop.
    throw new QueryHttpError(503, `this instance does not run task ${where.taskId} of store "${params.store}"; its owner is ${hostText(where.active)}; retry shortly`, {
      owner: hostText(where.active),
      ...placement,
    });
  }
  passThrough(response, await askOwner(where.active, url.pathname + url.search, context.self));
}

function answerHere(context: QueryRoutesContext, endpoint: Endpoint, params: QueryParams, response: ServerResponse): void {
  const body = readLocally(context.stores, endpoint.path, params);
  const text = JSON.stringify(renderJson({ store: params.store, ...body }));
  response.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text), [SERVED_BY_HEADER]: hostText(context.self) });
  response.end(text);
}

/** A read of every key: this instance's part, and each other instance's part asked with scope=local. */
async function answerEveryKey(context: QueryRoutesContext, endpoint: Endpoint, params: QueryParams, response: ServerResponse, url: URL): Promise<void> {
  if (url.searchParams.get("scope") === "local" || context.stores.isGlobal(params.store)) return answerHere(context, endpoint, params, response);
  const { metadata } = context;
  const count = metadata.partitionCountOf(params.store);
  const sub = metadata.subtopologyOf(params.store)!;
  const owners = new Map<string, { host: HostInfo; tasks: string[] }>();
  for (let partition = 0; partition < count; partition++) {
    const taskId = `${sub.id}_${partition}`;
    const owner = metadata.metadataForTask(taskId, partition).active;
    if (owner === null) throw new QueryHttpError(503, `no instance runs task ${taskId} of store "${params.store}" right now, so its keys cannot be read; retry shortly`, { owner: null, taskId });
    const entry = owners.get(hostText(owner)) ?? { host: owner, tasks: [] };
    entry.tasks.push(taskId);
    owners.set(hostText(owner), entry);
  }
  const local = new URL(url.href);
  local.searchParams.set("scope", "local");
  const parts = await Promise.all(
    [...owners.values()].map(async ({ host }) => {
      if (metadata.isSelf(host)) return renderJson(readLocally(context.stores, endpoint.path, params)) as Record<string, unknown[]>;
      const answer = await askOwner(host, local.pathname + local.search, context.self);
      const body = JSON.parse(answer.body) as Record<string, unknown[]> & { error?: string };
      if (answer.status !== 200) throw new QueryHttpError(answer.status, `instance ${hostText(host)} answered ${answer.status}: ${body.error ?? "no message"}`, { owner: hostText(host) });
      return body;
    }),
  );
  const field = endpoint.type === "window" ? "windows" : "entries";
  json(response, 200, { store: params.store, [field]: parts.flatMap((p) => p[field] ?? []), servedBy: [...owners.keys()] });
}

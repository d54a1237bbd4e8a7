import type { Serde } from "../../serdes/index.ts";
import type { HostInfo } from "./cluster-view.ts";
import type { KeyQueryMetadata, StreamsMetadata } from "./query-metadata.ts";

/** A non-200 answer of the query endpoint: its status and what the instance said. */
export class StoreQueryError extends Error {
  override readonly name = "StoreQueryError";
  readonly status: number;
  readonly body: Record<string, unknown>;
  constructor(status: number, body: Record<string, unknown>) {
    super(`query failed with HTTP ${status}: ${typeof body.error === "string" ? body.error : JSON.stringify(body)}`);
    this.status = status;
    this.body = body;
  }
}

export interface StoreQueryClientOptions<K> {
  /** Sends keys as their serialized bytes (keyBase64), exact for any serde; without it keys go as text (see docs/api.md). */
  keySerde?: Serde<K>;
  /** Turns a value as the endpoint renders it (JSON; bigint as a decimal string, bytes as base64) into the caller's type. */
  decodeValue?: (rendered: unknown) => unknown;
}

export interface WindowRead<V> {
  startMs: number;
  endMs: number;
  value: V;
  timestampMs: number;
}

export interface SessionRead<V> {
  startMs: number;
  endMs: number;
  value: V;
}

/**
 * Reads an application's stores through any one of its instances' HTTP endpoint; the
 * instance forwards keyed reads to the key's owner and gathers reads of every key.
 *
 * @example
 *   const client = new StoreQueryClient("http://orders-0.orders:8080", { decodeValue: (v) => BigInt(v as string) });
 *   await client.get<bigint>("clicks-per-user", "alice"); // 3n
 */
export class StoreQueryClient<K = unknown> {
  readonly #base: string;
  readonly #options: StoreQueryClientOptions<K>;

  constructor(instance: string | HostInfo, options: StoreQueryClientOptions<K> = {}) {
    const base = typeof instance === "string" ? instance : `http://${instance.host}:${instance.port}`;
    if (!/^https?:\/\/[^/]+/.test(base)) throw new TypeError(`instance ${JSON.stringify(base)} must be a URL like http://host:8080 or a {host, port}`);
    this.#base = base.replace(/\/+$/, "");
    this.#options = options;
  }

  /** The key's value, or null when the store has none. */
  async get<V>(store: string, key: K): Promise<V | null> {
    const body = await this.#ask("/stores/key-value/get", store, { key });
    return body.value === null ? null : this.#value<V>(body.value);
  }

  /** Entries with keys in [from, to] (a missing bound is open): each instance's in key order, instances one after another. */
  async range<V>(store: string, from: K | null = null, to: K | null = null): Promise<{ key: unknown; value: V }[]> {
    const body = await this.#ask("/stores/key-value/range", store, { from, to });
    return (body.entries as { key: unknown; value: unknown }[]).map((e) => ({ key: e.key, value: this.#value<V>(e.value) }));
  }

  async all<V>(store: string): Promise<{ key: unknown; value: V }[]> {
    const body = await this.#ask("/stores/key-value/all", store, {});
    return (body.entries as { key: unknown; value: unknown }[]).map((e) => ({ key: e.key, value: this.#value<V>(e.value) }));
  }

  /** The key's windows with a start in [timeFrom, timeTo] (open when not given), oldest first. */
  async windowFetch<V>(store: string, key: K, timeFrom?: number, timeTo?: number): Promise<WindowRead<V>[]> {
    const body = await this.#ask("/stores/window/fetch", store, { key }, { timeFrom, timeTo });
    return (body.windows as WindowRead<unknown>[]).map((w) => ({ ...w, value: this.#value<V>(w.value) }));
  }

  /** The key's sessions; with bounds, those ending at or after earliestEnd and starting at or before latestStart. */
  async sessionFetch<V>(store: string, key: K, bounds: { earliestEnd?: number; latestStart?: number } = {}): Promise<SessionRead<V>[]> {
    const body = await this.#ask("/stores/session/fetch", store, { key }, bounds);
    return (body.sessions as SessionRead<unknown>[]).map((s) => ({ ...s, value: this.#value<V>(s.value) }));
  }

  async metadataForKey(store: string, key: K): Promise<KeyQueryMetadata> {
    return (await this.#ask("/stores/metadata", store, { key })) as unknown as KeyQueryMetadata;
  }

  async metadataForStore(store: string): Promise<StreamsMetadata[]> {
    return (await this.#ask("/stores/metadata", store, {})).hosts as StreamsMetadata[];
  }

  #value<V>(rendered: unknown): V {
    return (this.#options.decodeValue ? this.#options.decodeValue(rendered) : rendered) as V;
  }

  async #ask(path: string, store: string, keys: Record<string, K | null>, times: Record<string, number | undefined> = {}): Promise<Record<string, unknown>> {
    const url = new URL(this.#base + path);
    url.searchParams.set("store", store);
    for (const [name, key] of Object.entries(keys)) if (key !== null && key !== undefined) this.#setKey(url, name, key);
    for (const [name, t] of Object.entries(times)) if (t !== undefined) url.searchParams.set(name, String(t));
    const answer = await fetch(url);
    const text = await answer.text();
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new StoreQueryError(answer.status, { error: `not a JSON answer: ${text.slice(0, 200)}` });
    }
    if (answer.status !== 200) throw new StoreQueryError(answer.status, body);
    return body;
  }

  #setKey(url: URL, name: string, key: K): void {
    const serde = this.#options.keySerde;
    if (serde) {
      const bytes = serde.serialize("", key);
      if (bytes === null) throw new TypeError(`the key serde turned ${String(key)} into null`);
      url.searchParams.set(`${name}Base64`, bytes.toString("base64"));
    } else if (key instanceof Uint8Array) {
      url.searchParams.set(`${name}Base64`, Buffer.from(key).toString("base64"));
    } else if (typeof key === "object") {
      url.searchParams.set(name, JSON.stringify(key));
    } else {
      url.searchParams.set(name, String(key));
    }
  }
}

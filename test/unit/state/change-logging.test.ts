import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Stores, changelogTopicName } from "../../../lib/state/index.ts";
import { StateFixture, stringSerde } from "./helpers.ts";

describe("change-logging layer", () => {
  let fx: StateFixture;
  beforeEach(() => {
    fx = new StateFixture();
  });
  afterEach(() => fx.close());

  it("sends every write to the changelog with the record timestamp", () => {
    const store = Stores.keyValueStoreBuilder("kv", stringSerde, stringSerde).build(fx.context);
    fx.timestampMs = 10;
    store.put("a", "1");
    fx.timestampMs = 11;
    store.put("a", "2");
    store.putIfAbsent("b", "3");
    store.putIfAbsent("b", "ignored");
    fx.timestampMs = 12;
    store.delete("a");
    store.delete("never-there");
    store.putAll([
      { key: "c", value: "4" },
      { key: "b", value: null },
    ]);
    expect(fx.changelog("kv").records).toEqual([
      { key: "a", value: "1", timestampMs: 10 },
      { key: "a", value: "2", timestampMs: 11 },
      { key: "b", value: "3", timestampMs: 11 },
      { key: "a", value: null, timestampMs: 12 },
      { key: "c", value: "4", timestampMs: 12 },
      { key: "b", value: null, timestampMs: 12 },
    ]);
  });

  it("logs nothing, and asks for no writer, when logging is disabled", () => {
    const store = Stores.keyValueStoreBuilder("quiet", stringSerde, stringSerde).withLoggingDisabled().build(fx.context);
    store.put("a", "1");
    store.delete("a");
    expect(fx.changelogs.has("quiet")).toBe(false);
  });

  it("serdes see the changelog topic name", () => {
    const topics: string[] = [];
    const spy = {
      serialize: (topic: string, v: string | null) => {
        topics.push(topic);
        return stringSerde.serialize(topic, v);
      },
      deserialize: stringSerde.deserialize,
    };
    Stores.keyValueStoreBuilder("named", spy, stringSerde).build(fx.context).put("k", "v");
    expect(topics).toEqual([changelogTopicName("app", "named")]);
    expect(topics[0]).toBe("app-named-changelog");
  });

  it("rejects store names that cannot be part of a topic name", () => {
    expect(() => Stores.keyValueStoreBuilder("no spaces", stringSerde, stringSerde)).toThrow(/not legal/);
    expect(() => Stores.keyValueStoreBuilder("", stringSerde, stringSerde)).toThrow(/not legal/);
  });
});

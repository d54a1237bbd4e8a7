import { describe, expect, it } from "vitest";
import { Consumed, Grouped, Materialized, Produced, Serdes, StreamsBuilder } from "../../../lib/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

// The example at the top of README.md, kept compiling and correct here.
describe("the README example", () => {
  it("counts page views per page", () => {
    const builder = new StreamsBuilder();
    builder
      .stream("page-views", Consumed.with(Serdes.string(), Serdes.json<{ page: string }>()))
      .filter((_, view): view is { page: string } => view !== null)
      .groupBy((_, view) => view.page, Grouped.with(Serdes.string(), Serdes.json<{ page: string }>()))
      .count(Materialized.as("views-per-page"))
      .toStream()
      .to("page-view-counts", Produced.with(Serdes.string(), Serdes.int64()));

    const driver = new TopologyTestDriver(builder.build());
    const views = driver.createInputTopic("page-views", Serdes.string(), Serdes.json<{ page: string }>());
    const counts = driver.createOutputTopic("page-view-counts", Serdes.string(), Serdes.int64());
    views.pipeInput("u1", { page: "/pricing" });
    views.pipeInput("u2", { page: "/docs" });
    views.pipeInput("u3", { page: "/pricing" });
    views.pipeInput("u4", null);
    expect(counts.readKeyValuesToList()).toEqual([
      ["/pricing", 1n],
      ["/docs", 1n],
      ["/pricing", 2n],
    ]);
    expect(driver.getKeyValueStore<string, bigint>("views-per-page").get("/pricing")).toBe(2n);
    driver.close();
  });
});

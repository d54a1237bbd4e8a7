/**
 * A topology module as `sluice reset --module` takes it: one function, nothing done at
 * import. Counts records per key in the changelogged store "counts". Topics from env
 * (INPUT, OUTPUT), read when the function is called.
 */
import { Consumed, Grouped, Materialized, Produced, Serdes, StreamsBuilder, type Topology } from "../../../lib/index.ts";

export function topology(): Topology {
  const input = process.env["INPUT"];
  const output = process.env["OUTPUT"];
  if (!input || !output) throw new Error("counting-topology needs INPUT and OUTPUT");
  const builder = new StreamsBuilder();
  builder
    .stream(input, Consumed.with(Serdes.string(), Serdes.string()))
    .groupByKey(Grouped.with(Serdes.string(), Serdes.string()))
    .count(Materialized.as("counts"))
    .toStream()
    .to(output, Produced.with(Serdes.string(), Serdes.int64()));
  return builder.build();
}

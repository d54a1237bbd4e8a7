// A user's topology module, as `sluice describe` and `sluice reset --module` expect it: it
// exports a function that builds the topology and does nothing else when imported.
import { Consumed, Grouped, Materialized, Produced, Serdes, StreamsBuilder } from "sluice";

/** Counts words (lower-cased) of the lines on `input`, writing each new count to `output`. */
export function topology(input = "lines", output = "word-counts") {
  const builder = new StreamsBuilder();
  builder
    .stream(input, Consumed.with(Serdes.string(), Serdes.string()))
    .flatMapValues((line) => (line ?? "").split(/\s+/).filter(Boolean))
    .selectKey((_, word) => word.toLowerCase())
    .groupByKey(Grouped.with(Serdes.string(), Serdes.string()))
    .count(Materialized.as("counts-per-word"))
    .toStream()
    .to(output, Produced.with(Serdes.string(), Serdes.int64()));
  return builder.build();
}

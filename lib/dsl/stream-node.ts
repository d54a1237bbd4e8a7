import { TopologyError } from "../errors/index.ts";
import type { Processor } from "../processor/index.ts";
import type { Serde } from "../serdes/index.ts";
import type { TopologyBuilder } from "../topology/index.ts";
import type { Named } from "./options/named.ts";

/**
 * What a stream handle knows besides its types: the graph node it hangs off, whether keys
 * may have changed since the last partitioning, and the serdes still valid for its data
 * (those of its source until an operator changes keys or values).
 */
export interface StreamState {
  readonly builder: TopologyBuilder;
  readonly nodeName: string;
  readonly repartitionRequired: boolean;
  readonly keySerde: Serde<unknown> | null;
  readonly valueSerde: Serde<unknown> | null;
}

/** Where a KStream keeps its StreamState; DSL modules (grouping, joins) read it, users cannot name it. */
export const STREAM_STATE: unique symbol = Symbol("sluice.streamState");

/** The user's name if given, else a generated one; a taken name fails here, at the call that chose it. */
export function nodeName(builder: TopologyBuilder, named: Named | undefined | null, prefix: string): string {
  return named == null ? builder.names.next(prefix) : claimName(builder, named.name);
}

/** A fixed name (the user's, or one derived from it), refused when already taken. */
export function claimName(builder: TopologyBuilder, name: string): string {
  if (builder.hasNode(name)) {
    throw new TopologyError(`Processor name "${name}" is used twice; names must be unique within a topology.`);
  }
  return name;
}

/** Adds one processor below `parent` and returns the state of the stream it produces. */
export function addOperator(
  parent: StreamState,
  name: string,
  supplier: () => Processor<never, never, unknown, unknown>,
  change: { keyChanging: boolean; valueChanging: boolean; stores?: readonly string[] },
): StreamState {
  parent.builder.addProcessor(name, supplier, [parent.nodeName], {
    keyChanging: change.keyChanging,
    stores: change.stores ?? [],
  });
  return {
    builder: parent.builder,
    nodeName: name,
    repartitionRequired: parent.repartitionRequired || change.keyChanging,
    keySerde: change.keyChanging ? null : parent.keySerde,
    valueSerde: change.valueChanging ? null : parent.valueSerde,
  };
}

/** The serde to write with: the one given, else the stream's own, else a clear error. */
export function requireSerde(
  given: Serde<unknown> | null | undefined,
  known: Serde<unknown> | null,
  what: "key" | "value",
  where: string,
  hint: string,
): Serde<unknown> {
  const serde = given ?? known;
  if (!serde) {
    throw new TopologyError(
      `${where} needs a ${what} serde: an earlier operator changed the ${what}s, so the source's serde no longer applies. ` +
        `Pass one: ${hint}.`,
    );
  }
  return serde;
}

export { StreamsBuilder } from "./streams-builder.ts";
export type { LoggedStoreBuilder } from "./streams-builder.ts";
export { KStream } from "./kstream.ts";
export { BranchedKStream } from "./branched-kstream.ts";
export { Consumed } from "./options/consumed.ts";
export { Produced } from "./options/produced.ts";
export { Repartitioned } from "./options/repartitioned.ts";
export { Named } from "./options/named.ts";
export { Branched } from "./options/branched.ts";

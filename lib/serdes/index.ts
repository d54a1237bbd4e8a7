export { SerdeError, serdeFrom } from "./serde.ts";
export type { Serde, SerdeFunctions } from "./serde.ts";
export { Serdes } from "./builtins.ts";

export * from "./errors.ts";
export * from "./handlers.ts";

/**
 * Puts `exports` in kafkajs' module cache under the module `specifier` names, so that the
 * kafkajs modules loaded after it get the replacement instead of kafkajs' own code. Each
 * replacement keeps the contract of the module it stands in for.
 */
export function replaceModule(require: NodeJS.Require, specifier: string, exports: unknown): void {
  const filename = require.resolve(specifier);
  require.cache[filename] = { id: filename, filename, loaded: true, exports } as unknown as NodeJS.Module;
}

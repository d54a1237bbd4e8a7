/**
 * A user-chosen processor name, instead of a generated KSTREAM-...-0000000007 one. Naming
 * operators keeps the topology description readable and stable as the code changes.
 *
 * @example
 *   stream.filter((k, v) => v !== null, Named.as("drop-tombstones"));
 */
export class Named {
  readonly name: string;

  private constructor(name: string) {
    this.name = name;
  }

  static as(name: string): Named {
    return new Named(name);
  }
}

/**
 * The serde shape the state layer needs. It is structurally identical to `Serde<T>` in
 * lib/serdes, declared here so that the state layer does not depend on that folder: any
 * serde from lib/serdes can be passed wherever a `StoreSerde` is asked for.
 */
export interface StoreSerde<T> {
  serialize(topic: string, value: T | null): Buffer | null;
  deserialize(topic: string, data: Buffer | null): T | null;
  /** Serializes every string as exactly its UTF-8 bytes (see `Serde.utf8String`). */
  readonly utf8String?: boolean;
}

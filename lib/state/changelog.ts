/**
 * Where the change-logging layer sends every write. The runtime implements it by
 * producing to `changelogTopicName(applicationId, store)` on the task's partition, inside
 * the task's Kafka transaction under exactly-once. `log` is synchronous on purpose
 * (invariant 1): the implementation buffers the record and the runtime awaits the
 * produce with the rest of the batch at commit.
 */
export interface ChangelogWriter {
  /** A null value is a tombstone. Keys and values are the store's serialized bytes. */
  log(key: Buffer, value: Buffer | null, timestampMs: number): void;
}

/** `<applicationId>-<storeName>-changelog` (invariant 5, Kafka Streams' name). */
export function changelogTopicName(applicationId: string, storeName: string): string {
  return `${applicationId}-${storeName}-changelog`;
}

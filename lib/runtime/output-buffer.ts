import type { OutgoingRecord } from "../kafka/index.ts";

type HeaderValues = Readonly<Record<string, Buffer | string>>;

/**
 * A task's output of one commit interval: sinks, changelogs and dead letters append here
 * synchronously (no await per record); the commit cycle sends it as one batch.
 */
export class OutputBuffer {
  #records: OutgoingRecord[] = [];
  // Output taken since the last commit: under exactly-once it may sit in an open
  // transaction, so it is work a rollback must redo even when nothing else is pending.
  #drainedSinceCommit = false;

  send(topic: string, key: Buffer | null, value: Buffer | null, timestamp: number, headers?: HeaderValues, partition?: number): void {
    const record: OutgoingRecord = { topic, key, value, timestamp };
    if (partition !== undefined) record.partition = partition;
    if (headers) {
      const names = Object.keys(headers);
      if (names.length > 0) {
        const bytes: Record<string, Buffer> = {};
        for (const name of names) {
          const v = headers[name]!;
          bytes[name] = typeof v === "string" ? Buffer.from(v) : v;
        }
        record.headers = bytes;
      }
    }
    this.#records.push(record);
  }

  get size(): number {
    return this.#records.length;
  }

  /** Takes everything buffered so far, leaving the buffer empty. */
  drain(): OutgoingRecord[] {
    const records = this.#records;
    if (records.length > 0) this.#drainedSinceCommit = true;
    this.#records = [];
    return records;
  }

  /** Whether output was taken (sent) since the last commit. */
  get drainedSinceCommit(): boolean {
    return this.#drainedSinceCommit;
  }

  /** What was taken so far is committed (or acknowledged). */
  committed(): void {
    this.#drainedSinceCommit = false;
  }

  /** Forgets the buffered output (a task rewound to its committed offsets). */
  clear(): void {
    this.#records = [];
    this.#drainedSinceCommit = false;
  }
}

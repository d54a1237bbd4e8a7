import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChangelogWriter, StoreContext, StoreSerde } from "../../../lib/state/index.ts";
import { StateDirectory } from "../../../lib/state/index.ts";
import type { TaskDatabase } from "../../../lib/state/index.ts";

export const stringSerde: StoreSerde<string> = {
  serialize: (_topic, value) => (value === null ? null : Buffer.from(value, "utf8")),
  deserialize: (_topic, data) => (data === null ? null : data.toString("utf8")),
};

/** Unsigned 32-bit big-endian, so that numeric order is byte order. */
export const uint32Serde: StoreSerde<number> = {
  serialize: (_topic, value) => {
    if (value === null) return null;
    const b = Buffer.alloc(4);
    b.writeUInt32BE(value);
    return b;
  },
  deserialize: (_topic, data) => (data === null ? null : data.readUInt32BE(0)),
};

export interface LoggedRecord {
  key: string;
  value: string | null;
  timestampMs: number;
}

/** A changelog that records what the logging layer sent, decoded as UTF-8. */
export class RecordingChangelog implements ChangelogWriter {
  readonly records: LoggedRecord[] = [];
  /** The same records as sent, for restoring them elsewhere. */
  readonly raw: { key: Buffer; value: Buffer | null; timestamp: number }[] = [];
  log(key: Buffer, value: Buffer | null, timestampMs: number): void {
    this.raw.push({ key, value, timestamp: timestampMs });
    this.records.push({ key: key.toString("utf8"), value: value === null ? null : value.toString("utf8"), timestampMs });
  }
}

/** A temporary state directory, locked, with one task database and a store context over it. */
export class StateFixture {
  readonly stateDir: string;
  readonly directory: StateDirectory;
  readonly database: TaskDatabase;
  readonly changelogs = new Map<string, RecordingChangelog>();
  timestampMs = 1_000;
  readonly context: StoreContext;

  constructor(options: { cacheMaxBytes?: number } = {}) {
    this.stateDir = mkdtempSync(join(tmpdir(), "sluice-state-"));
    this.directory = StateDirectory.lock(this.stateDir, "app");
    this.database = this.directory.openTask("0_0");
    this.context = {
      database: this.database,
      applicationId: "app",
      changelogWriter: (store) => this.changelog(store),
      recordTimestamp: () => this.timestampMs,
      ...(options.cacheMaxBytes === undefined ? {} : { cacheMaxBytes: options.cacheMaxBytes }),
    };
  }

  changelog(store: string): RecordingChangelog {
    let c = this.changelogs.get(store);
    if (c === undefined) {
      c = new RecordingChangelog();
      this.changelogs.set(store, c);
    }
    return c;
  }

  close(): void {
    this.database.close();
    this.directory.release();
    rmSync(this.stateDir, { recursive: true, force: true });
  }
}

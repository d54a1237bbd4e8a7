import { CHANGELOG_SUFFIX, decorateTopic } from "./naming.ts";

/**
 * A topic the application creates and owns. `name` has no application id; call
 * `fullName(applicationId)` for the real one. `numberOfPartitions` null means "as many as
 * the sub-topology has tasks", which the runtime works out from the source topics.
 */
export interface InternalTopicSpec {
  readonly kind: "repartition" | "changelog";
  readonly name: string;
  readonly numberOfPartitions: number | null;
  readonly config: Readonly<Record<string, string>>;
  /** Repartition topics are purged up to the committed offset after each commit. */
  readonly purgeAfterCommit: boolean;
  fullName(applicationId: string): string;
}

export function repartitionTopicSpec(name: string, numberOfPartitions: number | null): InternalTopicSpec {
  return {
    kind: "repartition",
    name,
    numberOfPartitions,
    // Infinite retention because the application deletes what it has committed.
    config: { "cleanup.policy": "delete", "retention.ms": "-1", "segment.bytes": "52428800" },
    purgeAfterCommit: true,
    fullName: (applicationId) => decorateTopic(applicationId, name),
  };
}

export function changelogTopicSpec(storeName: string, extraConfig: Readonly<Record<string, string>> = {}): InternalTopicSpec {
  const name = `${storeName}${CHANGELOG_SUFFIX}`;
  return {
    kind: "changelog",
    name,
    numberOfPartitions: null,
    config: { "cleanup.policy": "compact", ...extraConfig },
    purgeAfterCommit: false,
    fullName: (applicationId) => decorateTopic(applicationId, name),
  };
}

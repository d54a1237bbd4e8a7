/**
 * Generated names follow Kafka Streams: a prefix and a 10-digit counter shared by every
 * node and store in build order, e.g. KSTREAM-FILTER-0000000003. The same DSL calls in the
 * same order give the same names, which keeps store and topic names stable across deploys.
 */
export class NameGenerator {
  private counter = 0;

  next(prefix: string): string {
    return `${prefix}${String(this.counter++).padStart(10, "0")}`;
  }
}

export const REPARTITION_SUFFIX = "-repartition";
export const CHANGELOG_SUFFIX = "-changelog";

/** `<applicationId>-<name>`: how every internal topic is named at run time. */
export function decorateTopic(applicationId: string, name: string): string {
  return `${applicationId}-${name}`;
}

export function repartitionTopicName(baseName: string): string {
  return baseName.endsWith(REPARTITION_SUFFIX) ? baseName : `${baseName}${REPARTITION_SUFFIX}`;
}

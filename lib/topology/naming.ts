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

const LEGAL_TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;

/**
 * Kafka's rule for topic names, checked when the topology is built rather than when the
 * broker refuses it. Internal topics get `<applicationId>-` in front at run time, so the
 * runtime checks their full length again.
 */
export function topicNameProblem(name: string): string | null {
  if (!LEGAL_TOPIC.test(name)) return "use 1 to 249 letters, digits, '.', '_' or '-'";
  if (name === "." || name === "..") return `"${name}" is reserved`;
  return null;
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

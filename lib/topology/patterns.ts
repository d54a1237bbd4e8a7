/**
 * Pattern subscriptions. A pattern matches whole topic names, as Kafka Streams' (Java's
 * `Pattern.matcher(topic).matches()`): `/events-.*\/` reads `events-eu`, not
 * `old-events-eu`. The `g` and `y` flags are dropped, since they make `test()` remember
 * where it stopped and answer differently for the same topic.
 */
const OPEN = "^(?:";
const CLOSE = ")$";

export function wholeTopicPattern(pattern: RegExp): RegExp {
  return new RegExp(`${OPEN}${pattern.source}${CLOSE}`, pattern.flags.replace(/[gy]/g, ""));
}

/** The pattern as the user wrote it (for descriptions). */
export function patternSource(pattern: RegExp): string {
  const { source } = pattern;
  return source.startsWith(OPEN) && source.endsWith(CLOSE) ? source.slice(OPEN.length, -CLOSE.length) : source;
}

// The names Sluice gives internal topics, after `<applicationId>-` (the reset tool's rule):
// changelogs, repartition topics and foreign-key subscription topics, named or generated.
const INTERNAL_TAIL = String.raw`(?:.*-(?:changelog|repartition|subscription-registration-topic|subscription-response-topic)|.*KTABLE-FK-JOIN-SUBSCRIPTION-(?:REGISTRATION|RESPONSE)-\d{10}-topic)`;

/**
 * The pattern as one application subscribes with it: its own internal topics never match,
 * or a pattern like `/events-.*\/` with a store named `events-count` would read the store's
 * changelog back as input.
 */
export function excludingInternalTopics(pattern: RegExp, applicationId: string): RegExp {
  const whole = wholeTopicPattern(new RegExp(patternSource(pattern), pattern.flags));
  const ownPrefix = applicationId.replace(/[.]/g, "\\.");
  return new RegExp(`^(?!${ownPrefix}-${INTERNAL_TAIL}$)${whole.source.slice(1)}`, whole.flags);
}

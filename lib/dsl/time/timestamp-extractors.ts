import type { ConsumedRecord, TimestampExtractor } from "../../topology/index.ts";

/** A time as a value may carry it: epoch milliseconds, a bigint of them, or a Date. */
export type TimeValue = number | bigint | Date;

/** What to do when the value has no time (a tombstone, or the accessor returns null/undefined). */
export type MissingTime = "fail" | "record-timestamp" | "partition-time";

/** Epoch ms of a time value; NaN for anything else, which the task treats as invalid. */
export function toEpochMs(time: TimeValue | null | undefined): number {
  if (typeof time === "number") return time;
  if (typeof time === "bigint") return Number(time);
  if (time instanceof Date) return time.getTime();
  return Number.NaN;
}

/**
 * Ready-made timestamp extractors for `Consumed.withTimestampExtractor`. Whatever they
 * return that is not a non-negative number (NaN for a missing field, a negative time) is an
 * invalid timestamp: the task hands the record to the deserialization exception handler
 * (fail, continue with a count, or dead-letter), never drops it silently.
 *
 * @example
 *   builder.stream("readings", Consumed.with(Serdes.string(), Serdes.json<Reading>())
 *     .withTimestampExtractor(TimestampExtractors.fromField((r: Reading) => r.measuredAt)));
 */
export const TimestampExtractors = {
  /** The timestamp stored with the record in Kafka (producer create time or broker append time): the default. */
  recordTimestamp<K = unknown, V = unknown>(): TimestampExtractor<K, V> {
    return (record) => record.timestamp;
  },

  /**
   * Event time from the value. `whenMissing` decides for values without a time (default
   * "fail": the record goes to the deserialization handler); "record-timestamp" and
   * "partition-time" fall back to the Kafka timestamp or the partition's largest time so far.
   */
  fromField<V>(accessor: (value: V) => TimeValue | null | undefined, whenMissing: MissingTime = "fail"): TimestampExtractor<unknown, V | null> {
    return (record, partitionTimeMs) => {
      const time = record.value === null ? Number.NaN : toEpochMs(accessor(record.value));
      if (!Number.isNaN(time) || whenMissing === "fail") return time;
      return whenMissing === "record-timestamp" ? record.timestamp : partitionTimeMs;
    };
  },

  /** Processing time: the wall clock when the task reads the record. Results then depend on when the app runs. */
  wallClock<K = unknown, V = unknown>(clock: () => number = Date.now): TimestampExtractor<K, V> {
    return () => clock();
  },

  /**
   * For devices whose clocks are wrong. Each record carries the event time and the send
   * time by the device's clock, and a receive time by a trusted clock (the broker's or a
   * gateway's). The device's clock error is `send - receive` (ignoring transit time), so the
   * corrected event time is `event + (receive - send)`. The receive time defaults to the Kafka
   * record timestamp, which is the broker's clock when the topic uses LogAppendTime or when
   * the producer stamped records on arrival.
   *
   * @example
   *   TimestampExtractors.skewCorrected<Reading>({
   *     eventTime: (r) => r.measuredAt,       // device clock
   *     sendTime: (r) => r.sentAt,            // device clock
   *     receiveTime: (r, record) => Number(record.headers["received-at"]),  // optional
   *   })
   */
  skewCorrected<V>(accessors: {
    eventTime: (value: V) => TimeValue | null | undefined;
    sendTime: (value: V) => TimeValue | null | undefined;
    receiveTime?: (value: V, record: ConsumedRecord<unknown, V>) => TimeValue | null | undefined;
  }): TimestampExtractor<unknown, V | null> {
    return (record) => {
      const value = record.value;
      if (value === null) return Number.NaN;
      const event = toEpochMs(accessors.eventTime(value));
      const sent = toEpochMs(accessors.sendTime(value));
      const received = accessors.receiveTime ? toEpochMs(accessors.receiveTime(value, record as ConsumedRecord<unknown, V>)) : record.timestamp;
      return event + (received - sent);
    };
  },
};

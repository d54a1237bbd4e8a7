import type { Serde } from "../../serdes/index.ts";

interface StreamJoinedOptions<K, V, VO> {
  readonly name: string | null;
  readonly storeName: string | null;
  readonly keySerde: Serde<K> | null;
  readonly valueSerde: Serde<V> | null;
  readonly otherValueSerde: Serde<VO> | null;
  readonly loggingEnabled: boolean;
  readonly logConfig: Readonly<Record<string, string>>;
}

/**
 * Options of a stream-stream join: the serdes of its window stores (and of repartition
 * topics it inserts), the base name of its processors and repartition topics (`withName`),
 * the base name of its stores and changelogs (`withStoreName`), and changelog settings.
 * Without serdes the streams' own are used when they are still known.
 *
 * @example
 *   orders.join(payments, joiner, JoinWindows.ofTimeDifferenceWithNoGrace(60_000),
 *     StreamJoined.with(Serdes.string(), orderSerde, paymentSerde).withName("order-payment").withStoreName("order-payment"));
 */
export class StreamJoined<K, V, VO> {
  /** Processors `<name>-join-this` etc., repartition topics `<name>-left-repartition` / `<name>-right-repartition`. */
  readonly name: string | null;
  /** Stores `<storeName>-this-join-store`, `<storeName>-other-join-store`, `<storeName>-outer-shared-join-store`. */
  readonly storeName: string | null;
  readonly keySerde: Serde<K> | null;
  readonly valueSerde: Serde<V> | null;
  readonly otherValueSerde: Serde<VO> | null;
  readonly loggingEnabled: boolean;
  readonly logConfig: Readonly<Record<string, string>>;

  private constructor(options: StreamJoinedOptions<K, V, VO>) {
    this.name = options.name;
    this.storeName = options.storeName;
    this.keySerde = options.keySerde;
    this.valueSerde = options.valueSerde;
    this.otherValueSerde = options.otherValueSerde;
    this.loggingEnabled = options.loggingEnabled;
    this.logConfig = options.logConfig;
  }

  static with<K, V, VO>(keySerde: Serde<K>, valueSerde: Serde<V>, otherValueSerde: Serde<VO>): StreamJoined<K, V, VO> {
    return new StreamJoined<K, V, VO>({ ...DEFAULTS, keySerde, valueSerde, otherValueSerde });
  }

  static as<K, V, VO>(storeName: string): StreamJoined<K, V, VO> {
    return new StreamJoined<K, V, VO>({ ...DEFAULTS, storeName });
  }

  withName(name: string): StreamJoined<K, V, VO> {
    return new StreamJoined({ ...this, name });
  }

  withStoreName(storeName: string): StreamJoined<K, V, VO> {
    return new StreamJoined({ ...this, storeName });
  }

  withKeySerde(keySerde: Serde<K>): StreamJoined<K, V, VO> {
    return new StreamJoined({ ...this, keySerde });
  }

  withValueSerde(valueSerde: Serde<V>): StreamJoined<K, V, VO> {
    return new StreamJoined({ ...this, valueSerde });
  }

  withOtherValueSerde(otherValueSerde: Serde<VO>): StreamJoined<K, V, VO> {
    return new StreamJoined({ ...this, otherValueSerde });
  }

  /** Changelog topics with these extra configs (the default is on, `compact,delete`). */
  withLoggingEnabled(config: Record<string, string> = {}): StreamJoined<K, V, VO> {
    return new StreamJoined({ ...this, loggingEnabled: true, logConfig: { ...config } });
  }

  /** No changelogs: the join's buffered records are lost when its task moves. */
  withLoggingDisabled(): StreamJoined<K, V, VO> {
    return new StreamJoined({ ...this, loggingEnabled: false, logConfig: {} });
  }
}

const DEFAULTS: StreamJoinedOptions<never, never, never> = {
  name: null,
  storeName: null,
  keySerde: null,
  valueSerde: null,
  otherValueSerde: null,
  loggingEnabled: true,
  logConfig: {},
};

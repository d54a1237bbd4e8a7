import type { Change } from "../processor/index.ts";
import { SerdeError, type Serde } from "../serdes/index.ts";

const HAS_NEW = 1;
const HAS_OLD = 2;

/**
 * How a table change travels through KTable.groupBy's repartition topic: a flag byte
 * (1: new value, 2: old value, 3: both), then the value(s) in the inner serde's bytes, the
 * new one length-prefixed (int32 BE) when both are present. Only Sluice reads these topics.
 */
export function changeSerde<V>(inner: Serde<V>): Serde<Change<V>> {
  return {
    name: `change(${inner.name})`,
    serialize(topic, change) {
      if (change === null) return null;
      const newBytes = change.newValue === null ? null : inner.serialize(topic, change.newValue);
      const oldBytes = change.oldValue === null ? null : inner.serialize(topic, change.oldValue);
      const flags = (newBytes ? HAS_NEW : 0) | (oldBytes ? HAS_OLD : 0);
      if (newBytes && oldBytes) {
        const length = Buffer.alloc(4);
        length.writeInt32BE(newBytes.length, 0);
        return Buffer.concat([Buffer.from([flags]), length, newBytes, oldBytes]);
      }
      return Buffer.concat([Buffer.from([flags]), newBytes ?? oldBytes ?? Buffer.alloc(0)]);
    },
    deserialize(topic, data) {
      if (data === null) return null;
      const flags = data[0];
      if (flags === undefined || flags > 3) throw new SerdeError(this.name, topic, "not a table change (bad flag byte)");
      if (flags === (HAS_NEW | HAS_OLD)) {
        const length = data.readInt32BE(1);
        return {
          newValue: inner.deserialize(topic, data.subarray(5, 5 + length)),
          oldValue: inner.deserialize(topic, data.subarray(5 + length)),
        };
      }
      const value = flags === 0 ? null : inner.deserialize(topic, data.subarray(1));
      return { newValue: flags === HAS_NEW ? value : null, oldValue: flags === HAS_OLD ? value : null };
    },
  };
}

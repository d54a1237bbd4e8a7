"""The Quix Streams side of `make bench`, driven by the harness (test/bench/systems.ts).

stdin carries one command a line: "run APP_ID OUTPUT" builds the workload under that
consumer group and prints "running APP_ID" once partitions are assigned; "stop" stops it,
then the process prints "stopped 0" and exits (one run per process). Settings come from
the environment: BOOTSTRAP, WORKLOAD, INPUT, TABLE, LEFT, RIGHT, GUARANTEE,
COMMIT_INTERVAL_MS, STATE_DIR. Outputs are string keys and values in the format of
test/bench/peer-workloads.ts, so one verifier checks every system.
"""

import os
import sys
import threading

from quixstreams import Application
from quixstreams.models.serializers import Serializer

# Must equal the constants in test/bench/peer-workloads.ts.
WINDOW_MS = 60_000
ADVANCE_MS = 30_000
GRACE_MS = 5_000
SESSION_GAP_MS = 15_000
JOIN_WINDOW_MS = 15_000


def env(name):
    value = os.environ.get(name)
    if value is None:
        raise SystemExit(f"the Quix Streams bench runner needs the environment variable {name}")
    return value


def n(value):
    """The record number at the head of a value "<n>,<payload>"."""
    return int(value[: value.index(",")])


class PairValue(Serializer):
    """Writes the value half of a (key, value) pair; the key half goes through to_topic(key=...)."""

    def __call__(self, value, ctx):
        return None if value[1] is None else value[1].encode()


class BenchApplication(Application):
    """Says "running" once partitions are assigned or, with RESTORE=1, once state recovery ends."""

    announced = False

    def announce(self):
        if not self.announced:
            self.announced = True
            print(f"running {self.app_id}", flush=True)

    def _on_assign(self, consumer, topic_partitions):
        super()._on_assign(consumer, topic_partitions)
        if topic_partitions and os.environ.get("RESTORE") != "1":
            self.announce()

    def watch_recovery(self):
        recover = self._state_manager.do_recovery

        def recover_then_announce():
            recover()
            self.announce()

        self._state_manager.do_recovery = recover_then_announce


def build(app, workload, output_name):
    strings = dict(key_deserializer="string", value_deserializer="string")
    pairs = app.topic(output_name, key_serializer="string", value_serializer=PairValue())
    keep_key = lambda value, key, ts, headers: (key, value)  # noqa: E731
    if workload == "passthrough":
        sdf = app.dataframe(app.topic(env("INPUT"), key_deserializer="bytes", value_deserializer="bytes"))
        sdf.to_topic(app.topic(output_name, key_serializer="bytes", value_serializer="bytes"))
        return
    if workload == "stream-stream-join":
        left = app.dataframe(app.topic(env("LEFT"), **strings))
        right = app.dataframe(app.topic(env("RIGHT"), **strings))
        joined = left.join_interval(
            right,
            on_merge=lambda l, r: f"{n(l)}:{n(r)}",
            grace_ms=JOIN_WINDOW_MS + GRACE_MS,
            backward_ms=JOIN_WINDOW_MS,
            forward_ms=JOIN_WINDOW_MS,
        )
        joined.apply(keep_key, metadata=True).to_topic(pairs, key=lambda kv: kv[0])
        return
    sdf = app.dataframe(app.topic(env("INPUT"), **strings))
    if workload == "map-filter":
        sdf = sdf.filter(lambda v: n(v) % 2 == 0).apply(lambda v: v.upper())
        sdf.to_topic(app.topic(output_name, key_serializer="string", value_serializer="string"))
    elif workload in ("count-10k-keys", "count-1m-keys"):
        def count(value, state):
            total = state.get("count", 0) + 1
            state.set("count", total)
            return str(total)

        sdf.apply(count, stateful=True).to_topic(app.topic(output_name, key_serializer="string", value_serializer="string"))
    elif workload in ("tumbling-count", "hopping-count", "session-count"):
        if workload == "tumbling-count":
            windows = sdf.tumbling_window(WINDOW_MS, grace_ms=GRACE_MS)
        elif workload == "hopping-count":
            windows = sdf.hopping_window(WINDOW_MS, ADVANCE_MS, grace_ms=GRACE_MS)
        else:
            windows = sdf.session_window(SESSION_GAP_MS, grace_ms=GRACE_MS)
        counts = windows.count().current()
        counts = counts.apply(lambda w, key, ts, headers: (f"{key}@{w['start']}", str(w["value"])), metadata=True)
        counts.to_topic(pairs, key=lambda kv: kv[0])
    elif workload == "stream-table-join":
        table = app.dataframe(app.topic(env("TABLE"), **strings))
        joined = sdf.join_asof(table, on_merge=lambda v, row: f"{n(v)}:{row}")
        joined.to_topic(app.topic(output_name, key_serializer="string", value_serializer="string"))
    else:
        raise SystemExit(f"unknown workload {workload}")


def main():
    command = sys.stdin.readline().split()
    if len(command) != 3 or command[0] != "run":
        raise SystemExit(f'expected "run APP_ID OUTPUT" on stdin, got {command!r}')
    app_id, output_name = command[1], command[2]
    app = BenchApplication(
        broker_address=env("BOOTSTRAP"),
        consumer_group=app_id,
        auto_offset_reset="earliest",
        commit_interval=int(env("COMMIT_INTERVAL_MS")) / 1000,
        processing_guarantee="exactly-once" if env("GUARANTEE") == "exactly_once" else "at-least-once",
        state_dir=os.path.join(env("STATE_DIR"), app_id),
        auto_create_topics=True,
    )
    app.app_id = app_id
    if os.environ.get("RESTORE") == "1":
        app.watch_recovery()
    build(app, env("WORKLOAD"), output_name)

    def wait_for_stop():
        for line in sys.stdin:
            if line.strip() == "stop":
                break
        app.stop()

    threading.Thread(target=wait_for_stop, daemon=True).start()
    app.run()
    print("stopped 0", flush=True)


if __name__ == "__main__":
    main()

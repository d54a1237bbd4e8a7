"""Draws test/bench/results/latest.json as a PNG: per scenario the throughput, CPU seconds per
1M records, peak RSS and the ratio per CPU second against Kafka Streams steady; then the
end-to-end latency and the restore rate.

Usage: chart.py RESULTS.json OUT.png. Only verified cells get a bar; a failed or unsupported
one is left empty and named in the table, never drawn.
"""

import json
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# Must match LABEL in report.ts; a variant missing here is still drawn, under its raw name.
LABELS = {
    "sluice-kafkajs": "Sluice (kafkajs)",
    "sluice-platformatic": "Sluice (platformatic)",
    "kstreams-cold": "Kafka Streams (cold)",
    "kstreams-steady": "Kafka Streams (steady)",
    "quix": "Quix Streams",
}
# One colour per system in every panel, whichever systems ran.
COLORS = {variant: f"C{i}" for i, variant in enumerate(LABELS)}
# The ratios that count are against Kafka Streams' second run in a warm JVM (docs/benchmarks.md).
BASELINE = "kstreams-steady"


def in_label_order(variants):
    present = list(dict.fromkeys(variants))
    return [v for v in LABELS if v in present] + [v for v in present if v not in LABELS]


def verified(cell):
    return bool(cell) and not cell.get("unsupported") and bool(cell["runs"]) and all(r["verdict"]["ok"] for r in cell["runs"])


def median_of(cell, field):
    return statistics.median(r[field] for r in cell["runs"]) if verified(cell) else None


def grouped_bars(ax, groups, variants, value, ylabel):
    """One bar per variant in each group; value(group, variant) is a number or None (no bar)."""
    width = 0.8 / max(1, len(variants))
    for i, variant in enumerate(variants):
        heights = [value(group, variant) or 0 for group in groups]
        ax.bar([x + i * width for x in range(len(groups))], heights, width, label=LABELS.get(variant, variant), color=COLORS.get(variant))
    ax.set_xticks([x + width * (len(variants) - 1) / 2 for x in range(len(groups))], groups, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(ylabel, fontsize=9)
    if variants:
        ax.legend(fontsize=7)


def main(source, target):
    with open(source) as f:
        results = json.load(f)
    cells = {(c["scenario"], c["variant"]): c for c in results["cells"]}
    scenarios = list(dict.fromkeys(c["scenario"] for c in results["cells"]))
    variants = in_label_order(c["variant"] for c in results["cells"])

    def per_scenario(field):
        return lambda scenario, variant: median_of(cells.get((scenario, variant)), field)

    cpu = per_scenario("cpuSecondsPerMillion")

    def cpu_ratio(scenario, variant):
        base, own = cpu(scenario, BASELINE), cpu(scenario, variant)
        return base / own if base and own else None

    fig = plt.figure(figsize=(max(8, 1.6 * len(scenarios)), 20))
    grid = fig.add_gridspec(5, 2)
    panels = [
        ("records/s (median of verified rounds)", variants, per_scenario("recordsPerSecond")),
        ("CPU s per 1M records", variants, cpu),
        ("peak RSS MB", variants, per_scenario("peakRssMb")),
        ("per CPU s vs Kafka Streams steady (x)", [v for v in variants if v != BASELINE], cpu_ratio),
    ]
    for row, (ylabel, drawn, value) in enumerate(panels):
        ax = fig.add_subplot(grid[row, :])
        grouped_bars(ax, scenarios, drawn, value, ylabel)
    ax.axhline(1.0, color="black", linewidth=0.8)  # the ratio panel, drawn last: parity with Kafka Streams

    latency = {(c["scenario"], c["variant"]): c for c in results.get("latencyCells", [])}
    # One group per scenario and percentile: "passthrough EOS 100 ms 3p p99" -> (scenario, "p99").
    latency_groups = {f"{s} {q}": (s, q) for s in dict.fromkeys(s for s, _ in latency) for q in ("p50", "p99")}
    ax = fig.add_subplot(grid[4, 0])
    grouped_bars(ax, list(latency_groups), in_label_order(v for _, v in latency),
                 lambda group, variant: median_of(latency.get((latency_groups[group][0], variant)), latency_groups[group][1]),
                 "end-to-end latency ms (median)")
    if not latency:
        ax.set_title("latency not measured in this run", fontsize=9)

    restore = {c["variant"]: c for c in results.get("restoreCells", [])}
    ax = fig.add_subplot(grid[4, 1])
    restore_variants = in_label_order(restore)
    rates = [restore[v]["runs"][0]["changelogRecords"] / median_of(restore[v], "seconds") if verified(restore[v]) else 0 for v in restore_variants]
    ax.bar([LABELS.get(v, v) for v in restore_variants], rates, color=[COLORS.get(v) for v in restore_variants])
    ax.set_ylabel("restored records/s", fontsize=9)
    if not restore:
        ax.set_title("restore not measured in this run", fontsize=9)
    ax.tick_params(axis="x", labelsize=8, labelrotation=30)

    quick = " (QUICK)" if results.get("quick") else ""
    fig.suptitle(f"{results['records']:,} records, {results['rounds']} round(s){quick}; empty = failed or not supported", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    fig.savefig(target, dpi=80)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

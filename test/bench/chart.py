"""Draws the throughput of test/bench/results/latest.json as a grouped bar chart (PNG).

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


def main(source, target):
    with open(source) as f:
        results = json.load(f)
    cells = results["cells"]
    scenarios = list(dict.fromkeys(c["scenario"] for c in cells))
    present = list(dict.fromkeys(c["variant"] for c in cells))
    variants = [v for v in LABELS if v in present] + [v for v in present if v not in LABELS]
    width = 0.8 / max(1, len(variants))
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(scenarios)), 4.5))
    for i, variant in enumerate(variants):
        heights = []
        for scenario in scenarios:
            cell = next((c for c in cells if c["scenario"] == scenario and c["variant"] == variant), None)
            ok = cell and not cell.get("unsupported") and cell["runs"] and all(r["verdict"]["ok"] for r in cell["runs"])
            heights.append(statistics.median(r["recordsPerSecond"] for r in cell["runs"]) if ok else 0)
        ax.bar([x + i * width for x in range(len(scenarios))], heights, width, label=LABELS.get(variant, variant))
    ax.set_xticks([x + width * (len(variants) - 1) / 2 for x in range(len(scenarios))], scenarios, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("records/s (median of verified rounds)")
    quick = " (QUICK)" if results.get("quick") else ""
    ax.set_title(f"{results['records']:,} records, {results['rounds']} round(s){quick}; empty = failed or not supported", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(target, dpi=120)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

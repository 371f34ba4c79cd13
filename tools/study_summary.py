#!/usr/bin/env python3
"""Summarises a study's CSV (simtrain sweep --collect) over repeated runs: one row per configuration of the
--by columns, with the mean, standard deviation, minimum and maximum of each --metric over the runs that
differ only in the other columns (typically --seed). Prints a Markdown table.

usage: tools/study_summary.py RESULTS.csv --by platform,framework,model --metric job_time_s,samples_per_s
"""
import argparse
import csv
import statistics
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv")
    parser.add_argument("--by", required=True, help="comma-separated columns that identify a configuration")
    parser.add_argument("--metric", required=True, help="comma-separated metric columns")
    args = parser.parse_args()
    by, metrics = args.by.split(","), args.metric.split(",")
    with open(args.csv) as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "ok"]
    if not rows:
        print(f"{args.csv}: no finished run", file=sys.stderr)
        return 2
    for column in by + metrics:
        if column not in rows[0]:
            print(f"{args.csv}: no column '{column}'", file=sys.stderr)
            return 2
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[c] for c in by), []).append(r)
    header = by + ["runs"] + [f"{m} {s}" for m in metrics for s in ("mean", "std", "min", "max")]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for key, members in groups.items():
        cells = list(key) + [str(len(members))]
        for m in metrics:
            values = [float(r[m]) for r in members if r[m] != ""]
            if not values:
                cells += ["", "", "", ""]
                continue
            std = statistics.stdev(values) if len(values) > 1 else 0.0
            cells += [f"{statistics.mean(values):.4g}", f"{std:.3g}", f"{min(values):.4g}", f"{max(values):.4g}"]
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: GPL-2.0-or-later
"""Helpers for the scenario checks: read wbtop's JSON Lines, pick BDIs, report
figures and collect failures (the checks print every figure they judge)."""
import json, statistics, sys

MB = 1 << 20
failures = []


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def bdi(sample, name):
    for b in sample["bdis"]:
        if b["bdi"] == name:
            return b
    return None


def series(samples, name, key, default=None):
    out = []
    for s in samples:
        b = bdi(s, name)
        out.append(b.get(key, default) if b else default)
    return out


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def done():
    print(f"{len(failures)} failed" if failures else "all checks passed")
    sys.exit(1 if failures else 0)

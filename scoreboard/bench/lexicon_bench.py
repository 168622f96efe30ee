"""Lexicon benchmark: per shipped language, load time, RSS added, lookup and prefix-query time.

RSS is measured in a fresh interpreter: resident memory after loading and after 20,000
lookups, minus resident memory before loading (imports done, the sample words read).
``lexicon_*_lookup_vs_frozenset``: a lookup against the same lookup in a Python
``frozenset`` of the same words, rounds alternating (the machine's load cancels out).
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

from scoreboard import lexicons

LOADS = 50
LOOKUPS = 100_000

_RSS_PROBE = r"""
import json, sys
from scoreboard import lexicons
def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
sample = sys.stdin.read().split()
before = rss()
lex = lexicons.load(sys.argv[1])
found = sum(w in lex for w in sample)
print(json.dumps({"added": rss() - before, "found": found}))
"""


def _rss_added_mib(path: str, sample: list[str]) -> float:
    out = subprocess.run(
        [sys.executable, "-c", _RSS_PROBE, path],
        input="\n".join(sample),
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return float(json.loads(out.splitlines()[-1])["added"]) / 2**20


def _median_ns(query: Callable[[str], bool], words: list[str], rounds: int = 5) -> float:
    """Median over ``rounds`` of the mean time of one query, in nanoseconds."""
    means = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for w in words:
            query(w)
        means.append((time.perf_counter() - t0) / len(words) * 1e9)
    return statistics.median(means)


def run() -> dict[str, float]:
    """Figures for every shipped lexicon; the German ones also under the plain keys."""
    figures: dict[str, float] = {}
    for language in ("de", "fr", "en"):
        path = lexicons.shipped_path(language)
        times = []
        for _ in range(LOADS):
            t0 = time.perf_counter()
            lex = lexicons.load(path, language)
            times.append(time.perf_counter() - t0)
        words = list(lex)
        rng = random.Random(7)
        present = [rng.choice(words) for _ in range(LOOKUPS // 2)]
        absent = [w[:-1] + ("Q" if w[-1] != "Q" else "X") + "Z" for w in present]
        sample = present + absent
        rng.shuffle(sample)
        lookup_ns = _median_ns(lambda w: w in lex, sample)
        plain = frozenset(words)
        ratios = []
        for _ in range(5):  # alternating, so both see the same machine
            ratios.append(_median_ns(lambda w: w in lex, sample, 1) / _median_ns(lambda w: w in plain, sample, 1))
        del plain
        prefixes = [w[: max(1, len(w) // 2)] for w in present[:20_000]]
        prefix_ns = _median_ns(lex.has_prefix, prefixes)
        figures[f"lexicon_{language}_load_ms"] = statistics.median(times) * 1000
        figures[f"lexicon_{language}_rss_mib"] = _rss_added_mib(str(path), present[:20_000])
        figures[f"lexicon_{language}_lookup_ns"] = lookup_ns
        figures[f"lexicon_{language}_lookup_vs_frozenset"] = statistics.median(ratios)
        figures[f"lexicon_{language}_prefix_ns"] = prefix_ns
    figures["lexicon_load_ms"] = figures["lexicon_de_load_ms"]
    figures["lexicon_rss_mib"] = figures["lexicon_de_rss_mib"]
    figures["lexicon_lookup_ns"] = figures["lexicon_de_lookup_ns"]
    figures["lexicon_lookup_vs_frozenset"] = figures["lexicon_de_lookup_vs_frozenset"]
    return figures

#!/usr/bin/python3
"""Medians of decide_peers.sh's rounds, as a Markdown table with the floor
and the ratios the issue's goals are stated in. Input lines:
  fma ISA RATE            name d K us_per_step|absent
"""
import statistics
import sys
from collections import defaultdict

GOALS = "goals: (10,10) <= 0.5 us, >= 150x the reference, >= 1,500x MABWiser; (20,50) <= 3x floor"


def main(path):
    times = defaultdict(list)
    rates, isa = [], ""
    for line in open(path):
        f = line.split()
        if f[0] == "fma":
            isa = f[1]
            rates.append(float(f[2]))
        elif f[3] != "absent":
            times[(f[0], int(f[1]), int(f[2]))].append(float(f[3]))
    rate = statistics.median(rates)
    print(f"FMA rate: {rate / 1e9:.1f} G multiply-adds/s ({isa}, median of {len(rates)} rounds)")
    print("| (d, K) | floor K·d² | p2b | p2b/floor | plain LinUCB | P2B reference | ref/p2b "
          "| MABWiser | MABWiser/p2b | VW ε-greedy | VW/p2b | VW RegCB-Opt | VW/p2b |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    med = lambda key: statistics.median(times[key]) if times.get(key) else None
    fmt = lambda v, unit=" µs": "absent" if v is None else f"{v:,.3f}{unit}" if v < 10 else f"{v:,.0f}{unit}"
    for d, k in sorted({(d, k) for (_, d, k) in times}):
        floor = k * d * d / rate * 1e6
        p2b, plain = med(("p2b", d, k)), med(("plain", d, k))
        ref, mab = med(("reference", d, k)), med(("mabwiser", d, k))
        egreedy, regcbopt = med(("vw-egreedy", d, k)), med(("vw-regcbopt", d, k))
        ratio = lambda v: "—" if v is None or p2b is None else f"{v / p2b:,.0f}×"
        print(f"| ({d}, {k}) | {floor:.3f} µs | {fmt(p2b)} | {p2b / floor:,.1f}× | {fmt(plain)} "
              f"| {fmt(ref)} | {ratio(ref)} | {fmt(mab)} | {ratio(mab)} "
              f"| {fmt(egreedy)} | {ratio(egreedy)} | {fmt(regcbopt)} | {ratio(regcbopt)} |")
    print(GOALS)


if __name__ == "__main__":
    main(sys.argv[1])

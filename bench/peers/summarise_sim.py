#!/usr/bin/python3
"""The "sim" lines of bench/env_trace and sim_peers.py as a Markdown table:
reward and time per interaction on the paper's environment, each learner's
time beside p2b's in the same setting. Input lines:
  sim NAME SETTING reward stderr rbar_of_chosen us_per_interaction|-
  env ... (the trace's description, printed above the table)
"""
import sys

LABELS = {"p2b": "p2b LinUCB (C API)", "vw-egreedy": "VW ε-greedy 0.05 (its default)",
          "vw-regcbopt": "VW RegCB-Opt", "oracle": "oracle (best arm in expectation)",
          "random": "random arm"}


def main(path):
    rows = []
    for line in open(path):
        f = line.split()
        if f and f[0] == "env":
            print("trace: " + " ".join(f[1:]))
        elif f and f[0] == "sim":
            rows.append(f[1:])
    p2b_us = {r[1]: float(r[5]) for r in rows if r[0] == "p2b"}
    print("| learner | setting | reward / interaction (± se) | expected reward of the arms played "
          "| µs / interaction | time / p2b's |")
    print("|---|---|--:|--:|--:|--:|")
    for name, setting, reward, se, rbar, us in rows:
        ratio, shown = "—", "—"
        if us != "-":
            shown = f"{float(us):,.2f}" if float(us) < 100 else f"{float(us):,.0f}"
            if setting in p2b_us:
                ratio = f"{float(us) / p2b_us[setting]:,.0f}×"
        print(f"| {LABELS.get(name, name)} | {setting} | {float(reward):.5f} (± {float(se):.5f}) "
              f"| {float(rbar):.5f} | {shown} | {ratio} |")


if __name__ == "__main__":
    main(sys.argv[1])

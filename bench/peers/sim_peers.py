"""Vowpal Wabbit on the paper's synthetic environment: replays the trace that
bench/env_trace writes (the same users, contexts and reward draws p2b's
LinUCB agent met there) and prints, in env_trace's line format,

  sim NAME SETTING reward stderr rbar_of_chosen us_per_interaction

  oracle  the arm best in expectation at every step (p2b-sim's oracle)
  random  a uniformly random arm (numpy, seed 7)
  vw-egreedy, vw-regcbopt (vw_learner.py), in two settings:
    per-user  a fresh workspace per user for its t interactions: p2b-sim's
              cold late users; the time includes making and closing the
              workspace, as p2b's includes forgetting
    central   one workspace over every user's interactions in turn: a
              non-private central learner that sees the whole stream

reward is the realised Bernoulli reward (coin < rbar of the arm), averaged
per user then over users (stderr over users, as p2b-sim reports it);
rbar_of_chosen is the expected reward of the arms played, the same figure
without the Bernoulli noise. The timed part is decide + learn only: the
shared-feature strings are formatted before the clock starts.

  sim_peers.py TRACE_DIR [--users N] [--central-only] [--explorations LIST]

--central-only skips the per-user setting, whose fresh workspace per user
costs about 8 ms: for long traces (env_trace --early-users 100000).
--explorations picks VW's explorations (vw_learner.py); by default its
default and RegCB-Opt.
"""
import argparse
import time

import numpy as np

from vw_learner import EXPLORATIONS, OTHER_EXPLORATIONS, VwLearner, shared_line


def load(directory):
    users, t, d, k, _first, _seed = (int(v) for v in open(f"{directory}/meta.txt").read().split())
    steps = users * t
    x = np.fromfile(f"{directory}/x.f32", dtype=np.float32).reshape(steps, d)
    rbar = np.fromfile(f"{directory}/rbar.f64").reshape(steps, k)
    coin = np.fromfile(f"{directory}/coin.f64")
    best = np.fromfile(f"{directory}/best.u32", dtype=np.uint32)
    return users, t, k, x, rbar, coin, best


def report(name, setting, actions, users, t, rbar, coin, seconds=None):
    chosen = rbar[np.arange(len(actions)), actions]
    per_user = (coin < chosen).astype(np.float64).reshape(users, t).mean(axis=1)
    se = per_user.std(ddof=1) / np.sqrt(users)
    us = "-" if seconds is None else f"{seconds * 1e6 / len(actions):.4f}"
    print(f"sim {name} {setting} {per_user.mean():.6f} {se:.6f} {chosen.mean():.6f} {us}",
          flush=True)


def run_vw(name, central, users, t, k, shared, rbar, coin):
    actions = np.empty(users * t, dtype=np.int64)
    learner = VwLearner(name, k) if central else None
    t0 = time.perf_counter()
    for u in range(users):
        if not central:
            learner = VwLearner(name, k)
        for i in range(u * t, (u + 1) * t):
            a, p = learner.decide(shared[i])
            learner.learn(shared[i], a, p, 1.0 if coin[i] < rbar[i, a] else 0.0)
            actions[i] = a
        if not central:
            learner.finish()
    seconds = time.perf_counter() - t0
    if central:
        learner.finish()
    return actions, seconds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--users", type=int, help="only the first N users of the trace")
    ap.add_argument("--central-only", action="store_true")
    known = {**EXPLORATIONS, **OTHER_EXPLORATIONS}
    ap.add_argument("--explorations", default=",".join(EXPLORATIONS),
                    help="comma-separated, from " + ", ".join(known))
    args = ap.parse_args()
    unknown = set(args.explorations.split(",")) - set(known)
    if unknown:
        ap.error(f"--explorations: unknown {', '.join(sorted(unknown))}")
    users, t, k, x, rbar, coin, best = load(args.trace)
    if args.users:
        users = min(users, args.users)
        x, rbar, coin, best = x[:users * t], rbar[:users * t], coin[:users * t], best[:users * t]
    report("oracle", "-", best.astype(np.int64), users, t, rbar, coin)
    report("random", "-", np.random.default_rng(7).integers(0, k, users * t), users, t, rbar,
           coin)
    shared = [shared_line(row) for row in x]
    for central in (True,) if args.central_only else (False, True):
        for name in args.explorations.split(","):
            actions, seconds = run_vw(name, central, users, t, k, shared, rbar, coin)
            report(name, "central" if central else "per-user", actions, users, t, rbar, coin,
                   seconds)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""One round of decide+reward per step for the Python peers, on the contexts
and the reward rule bench/peer_decide.cpp uses (read from DATA_DIR):

  decide_peers.py DATA_DIR [--reference DIR] [--mabwiser [DIR]] [--vw]

--reference: a directory holding the P2B reference code's bandipy/policy.py
(its LinUCB act + feedback; extracted at run time, never committed).
--mabwiser: MABWiser's LinUCB predict + partial_fit, from a checkout DIR or,
without DIR, as installed (bench/peers/requirements.txt).
--vw: Vowpal Wabbit's contextual bandit (--cb_explore_adf over K action
lines, context x action crossed), predict + learn, as installed, with its
default exploration (vw-egreedy) and the one closest to LinUCB
(vw-regcbopt); vw_learner.py says why.
A peer that is absent or fails to import prints "absent". Output lines:
"name d K us_per_step", as peer_decide prints them.
"""
import argparse
import importlib.util
import sys
import time

import numpy as np

from vw_learner import EXPLORATIONS, VwLearner, shared_line

POINTS = [(10, 10), (20, 20), (20, 50)]
POOL = 4096


def reward_of(x, k, action):
    return 1.0 if int(np.argmax(x)) % k == action else 0.0


def load_reference(directory):
    spec = importlib.util.spec_from_file_location("p2b_reference_policy",
                                                  f"{directory}/bandipy/policy.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def time_reference(module, xs, d, k, steps):
    np.random.seed(0)
    agent = module.LinUCB(k, d)
    t0 = time.perf_counter()
    for i in range(steps):
        x = xs[i % POOL].astype(np.float64)
        a = agent.act(x, alpha=1.0)
        agent.feedback(x, a, reward_of(x, k, a))
    return (time.perf_counter() - t0) * 1e6 / steps


def time_mabwiser(xs, d, k, steps):
    from mabwiser.mab import MAB, LearningPolicy
    mab = MAB(arms=list(range(k)), learning_policy=LearningPolicy.LinUCB(alpha=1.0), seed=7)
    mab.fit(decisions=list(range(k)), rewards=[0.0] * k, contexts=xs[:k].astype(np.float64))
    t0 = time.perf_counter()
    for i in range(steps):
        x = xs[i % POOL].astype(np.float64).reshape(1, d)
        a = mab.predict(x)
        mab.partial_fit([a], [reward_of(x[0], k, a)], x)
    return (time.perf_counter() - t0) * 1e6 / steps


def time_vw(exploration, xs, k, steps):
    learner = VwLearner(exploration, k)
    t0 = time.perf_counter()
    for i in range(steps):
        x = xs[i % POOL]
        shared = shared_line(x)
        a, p = learner.decide(shared)
        learner.learn(shared, a, p, reward_of(x, k, a))
    learner.finish()
    return (time.perf_counter() - t0) * 1e6 / steps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--reference")
    ap.add_argument("--mabwiser", nargs="?", const="")
    ap.add_argument("--vw", action="store_true")
    ap.add_argument("--steps", type=int, default=1000)
    args = ap.parse_args()
    reference = None
    if args.reference:
        try:
            reference = load_reference(args.reference)
        except Exception as e:  # a peer that cannot load is reported, not fatal
            print(f"# reference: {e}", file=sys.stderr)
    mabwiser_ok = False
    if args.mabwiser is not None:
        if args.mabwiser:
            sys.path.insert(0, args.mabwiser)
        try:
            import mabwiser.mab  # noqa: F401
            mabwiser_ok = True
        except Exception as e:
            print(f"# mabwiser: {e}", file=sys.stderr)
    vw_ok = False
    if args.vw:
        try:
            import vowpalwabbit  # noqa: F401
            vw_ok = True
        except Exception as e:
            print(f"# vw: {e}", file=sys.stderr)
    for d, k in POINTS:
        xs = np.fromfile(f"{args.data}/contexts_d{d}.f32", dtype=np.float32).reshape(POOL, d)
        if reference:
            print(f"reference {d} {k} {time_reference(reference, xs, d, k, args.steps):.4f}")
        else:
            print(f"reference {d} {k} absent")
        # MABWiser is ~10x slower still: fewer steps keep a round short.
        if mabwiser_ok:
            print(f"mabwiser {d} {k} {time_mabwiser(xs, d, k, max(args.steps // 4, 50)):.4f}")
        else:
            print(f"mabwiser {d} {k} absent")
        for name in EXPLORATIONS:
            if vw_ok:
                print(f"{name} {d} {k} {time_vw(name, xs, k, args.steps):.4f}")
            else:
                print(f"{name} {d} {k} absent")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

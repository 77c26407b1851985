#!/usr/bin/python3
"""The Python agent's decide+reward cost per round, against MABWiser's LinUCB.

Both learn online on the same data: the same contexts (uniform on the
simplex), the same hidden linear reward model (Bernoulli draws), the same
d, arms and rounds, LinUCB with alpha = 1 and ridge lambda = 1. Per round,
p2b does Agent.decide then Agent.reward; MABWiser does predict then
partial_fit on that one round (its online use). p2b's agent also encodes
each context to its k-means code and runs P2B's reporting (window t = 10,
p = 0.5), which MABWiser does not.

MABWiser is not a Debian package: put its source on PYTHONPATH (see
docs/benchmarks.md, "Python"). Without it this script says so and times
p2b alone.

    PYTHONPATH=MABWISER_SRC .venv/bin/python bench/python/bench_agent.py [--dim 10] [--arms 10]
"""

import argparse
import time

import numpy as np

import p2b


def make_data(dim, arms, rounds, seed):
    rng = np.random.default_rng(seed)
    x = rng.dirichlet(np.ones(dim), size=rounds).astype(np.float32)
    w = rng.random((arms, dim))
    p = np.clip(x.astype(np.float64) @ w.T, 0, 1)  # rounds x arms reward probabilities
    coins = rng.random((rounds, arms))
    return x, (coins < p).astype(np.float64), p


def run_p2b(x, rewards, arms, codes, seed):
    keys = p2b.keygen()
    cb = p2b.train_codebook(x.shape[1], codes, seed=seed, threads=2)["centroids"]
    agent = p2b.Agent(cb, arms, alpha=1.0, ridge_lambda=1.0, seed=seed, **keys.agent_keys())
    total = 0.0
    t0 = time.perf_counter()
    for i in range(x.shape[0]):
        a, d = agent.decide(x[i])
        r = rewards[i, a]
        agent.reward(d, r)
        total += r
    return time.perf_counter() - t0, total


def run_mabwiser(x, rewards, arms, seed):
    from mabwiser.mab import MAB, LearningPolicy

    mab = MAB(arms=list(range(arms)),
              learning_policy=LearningPolicy.LinUCB(alpha=1.0, l2_lambda=1.0), seed=seed)
    # MABWiser must be fitted before it predicts: one round per arm, on the
    # first contexts, untimed (p2b's agent starts from its prior instead).
    warm = x[:arms].astype(np.float64)
    mab.fit(decisions=list(range(arms)), rewards=[rewards[i, i] for i in range(arms)],
            contexts=warm)
    total = 0.0
    xd = x.astype(np.float64)
    t0 = time.perf_counter()
    for i in range(x.shape[0]):
        ctx = xd[i : i + 1]
        a = mab.predict(ctx)
        r = rewards[i, a]
        mab.partial_fit(decisions=[a], rewards=[r], contexts=ctx)
        total += r
    return time.perf_counter() - t0, total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dim", type=int, default=10)
    ap.add_argument("--arms", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=2000)
    ap.add_argument("--codes", type=int, default=1024, help="p2b codebook size k [1024]")
    ap.add_argument("--seed", type=int, default=1)
    o = ap.parse_args()
    x, rewards, p = make_data(o.dim, o.arms, o.rounds, o.seed)
    print(f"p2b {p2b.__version__}: d={o.dim} arms={o.arms} rounds={o.rounds} k={o.codes} "
          f"seed={o.seed}; LinUCB alpha=1, lambda=1; one decide+reward per round")
    print(f"expected reward per round: random arm {p.mean():.4f}, "
          f"oracle {p.max(axis=1).mean():.4f}")
    secs, total = run_p2b(x, rewards, o.arms, o.codes, o.seed)
    ours = secs / o.rounds * 1e6
    print(f"p2b.Agent        {ours:9.1f} us/round  ({o.rounds / secs:9.0f} rounds/s)  "
          f"mean reward {total / o.rounds:.4f}")
    try:
        import mabwiser  # noqa: F401
    except ImportError:
        print("MABWiser: not installed (not in Debian; put its source on PYTHONPATH, "
              "docs/benchmarks.md): timed p2b only")
        return
    from mabwiser._version import __version__ as mw_version

    secs, total = run_mabwiser(x, rewards, o.arms, o.seed)
    theirs = secs / o.rounds * 1e6
    print(f"MABWiser {mw_version:7s} {theirs:9.1f} us/round  ({o.rounds / secs:9.0f} rounds/s)  "
          f"mean reward {total / o.rounds:.4f}")
    print(f"MABWiser / p2b time per round: {theirs / ours:.0f}x")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""scikit-learn's KMeans (n_init=1) and MiniBatchKMeans (random_state 0) on the
simplex grid p2b-codebook trains on, with the inertia computed as
p2b-codebook reports it (sum of squared distances over the whole grid, in
double), so the two tools' figures compare directly.

  codebook_vs_sklearn.py D Q K   -> "sklearn-kmeans|sklearn-minibatch SECONDS INERTIA ITERS"
Prints "absent" when scikit-learn is not installed (apt-get install python3-sklearn).
"""
import itertools
import sys
import time

import numpy as np


def grid(d, q):
    """Every point of {0, 1/10^q, ..} ^ d summing to 1 (stars and bars)."""
    units = 10 ** q
    rows = []
    for bars in itertools.combinations(range(units + d - 1), d - 1):
        prev, row = -1, []
        for b in bars:
            row.append(b - prev - 1)
            prev = b
        row.append(units + d - 2 - prev)
        rows.append(row)
    return np.asarray(rows, dtype=np.float64) / units


def inertia(points, centres):
    best = np.full(len(points), np.inf)
    for start in range(0, len(centres), 256):
        c = centres[start:start + 256]
        d2 = ((points[:, None, :] - c[None, :, :]) ** 2).sum(axis=2)
        best = np.minimum(best, d2.min(axis=1))
    return float(best.sum())


def main(d, q, k):
    try:
        from sklearn.cluster import KMeans, MiniBatchKMeans
    except ImportError:
        print("sklearn absent")
        return
    x = grid(d, q).astype(np.float32)
    for name, model in (
        ("sklearn-kmeans", KMeans(n_clusters=k, n_init=1, random_state=0)),
        ("sklearn-minibatch", MiniBatchKMeans(n_clusters=k, n_init=1, random_state=0,
                                              batch_size=4096)),
    ):
        t0 = time.perf_counter()
        model.fit(x)
        seconds = time.perf_counter() - t0
        iters = getattr(model, "n_steps_", getattr(model, "n_iter_", 0))
        print(f"{name} {seconds:.2f} {inertia(x.astype(np.float64), model.cluster_centers_.astype(np.float64)):.4f} {iters}")
        sys.stdout.flush()


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))

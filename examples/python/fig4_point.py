#!/usr/bin/python3
"""One point of the P2B paper's Fig. 4, from Python.

10,000 early users (d = 10, |A| = 10, t = 10, k = 1024 codes, p = 0.5,
l = 10) share through P2B; the late users then run cold, warm from a
non-private model and warm from the private one. This is the row
"default | 10 | 10,000" of docs/results.md section 1 (linear map), and the
same seed gives the same numbers. Takes 2 s on two cores (Release), most of
it training the codebook (whose report goes to the logger p2b.p2b).
docs/python.md explains each call.

    .venv/bin/python examples/python/fig4_point.py   # the venv p2b is installed in
"""

import p2b

row = p2b.simulate_p2b(users=10_000, actions=10, dim=10, codes=1024, mode="default",
                       mapping="linear", no_crypto=True, seed=1, progress=False).iloc[0]

print(f"p2b {p2b.__version__}: Fig. 4, default mode, linear map, |A| = 10, u = 10,000")
for name in ("cold", "warm_nonprivate", "warm_private", "best_fixed_arm", "oracle"):
    print(f"  {name:16s} {row[name]:.5f}")
print(f"  reports {row['reports']}, kept after l: {row['kept']}, "
      f"codes released {row['codes_released']}")
print(f"  warm private / cold: {row['warm_private'] / row['cold']:.2f}x; "
      f"private / non-private: {row['warm_private'] / row['warm_nonprivate']:.2f}")

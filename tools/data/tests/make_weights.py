#!/usr/bin/python3
"""Writes weights files with NumPy for test_weights_file (docs/data.md).

Values: W[a][j] = ((31 a + 17 j) % 23 - 11) / 7 and b[a] = (a - 2) / 3, the
same formula the C++ test evaluates, so float64 files must match exactly and
float32 files must match the float32 rounding of each value.
Usage: make_weights.py OUT_DIR
"""
import os
import sys

import numpy as np

A, D = 5, 3


def weights():
    w = np.array([[((31 * a + 17 * j) % 23 - 11) / 7 for j in range(D)] for a in range(A)])
    b = np.array([(a - 2) / 3 for a in range(A)])
    return w, b


def main(out):
    os.makedirs(out, exist_ok=True)
    w, b = weights()
    wb = np.hstack([w, b[:, None]])  # single-array convention: (|A|, d + 1)
    p = lambda name: os.path.join(out, name)
    np.save(p("combined_f8.npy"), wb.astype("<f8"))
    np.save(p("combined_f4.npy"), wb.astype("<f4"))
    np.save(p("combined_be.npy"), wb.astype(">f8"))
    np.save(p("combined_fortran.npy"), np.asfortranarray(wb))
    for version in [(2, 0), (3, 0)]:
        with open(p("combined_v%d.npy" % version[0]), "wb") as f:
            np.lib.format.write_array(f, wb, version=version)
    np.save(p("W.npy"), w)
    np.save(p("b.npy"), b)
    np.save(p("W_wrong.npy"), w[:, :2])
    np.savez(p("weights.npz"), W=w, b=b)
    np.savez_compressed(p("weights_compressed.npz"), W=w.astype("<f4"), b=b)
    np.savez_compressed(p("single.npz"), wb)
    np.savez(p("other_names.npz"), weights=w, bias=b)
    np.savetxt(p("weights.csv"), wb, delimiter=",", fmt="%.17g", header="W row then b")
    np.savetxt(p("W.csv"), w, delimiter=",", fmt="%.17g")
    np.savetxt(p("b.csv"), b, delimiter=",", fmt="%.17g")
    # Transposed layouts: Keras's Dense kernel is (d, |A|), the transpose of W.
    np.savez(p("keras.npz"), kernel=w.T, bias=b)
    np.savez(p("keras_scoped.npz"), **{"dense/kernel:0": w.T, "dense/bias:0": b})
    np.save(p("W_T.npy"), w.T)
    np.save(p("combined_T.npy"), wb.T)  # (d + 1, |A|), b in the last row
    np.savez(p("both_names.npz"), W=w, b=b, kernel=w.T, bias=b)
    # Square (|A| = d = 3): only names or a flag can tell the orientation.
    sq = w[:3, :3]
    np.save(p("Wsq.npy"), sq)
    np.save(p("bsq.npy"), b[:3])
    np.savez(p("square_ours.npz"), W=sq, b=b[:3])
    np.savez(p("square_keras.npz"), kernel=sq.T, bias=b[:3])
    print("wrote reference weights to", out)


if __name__ == "__main__":
    main(sys.argv[1])

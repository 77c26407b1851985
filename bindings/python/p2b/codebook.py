"""train_codebook: p2b-codebook's trainer, its report through logging and its
progress as a tqdm bar.

The compiled trainer prints nothing: its report (the lines p2b-codebook
prints) goes to the logger "p2b.codebook" at INFO, each progress line at
DEBUG, so Python is silent unless logging is configured, e.g.
logging.basicConfig(level=logging.INFO). The keywords are p2b-codebook's
long flags with '-' as '_'.
"""

from __future__ import annotations

import logging
import warnings
from typing import Any, Callable, Dict, Optional, Tuple

from . import _p2b
from ._run import tqdm_class

__all__ = ["train_codebook"]

_log = logging.getLogger("p2b.codebook")


def _progress_sink(progress: Optional[bool]) -> Tuple[Callable[[str], None], Callable[[], None]]:
    """(on_status, close): log each line at DEBUG and, when asked, draw it on
    a tqdm bar: progress=None draws one when tqdm is installed, True needs
    tqdm, False never draws."""
    tqdm = tqdm_class(progress)
    if tqdm is None:

        def log_only(line: str) -> None:
            _log.debug("%s", line)

        return log_only, lambda: None
    bar = tqdm(desc="train_codebook", unit=" steps", leave=False)

    def draw(line: str) -> None:
        _log.debug("%s", line)
        bar.set_postfix_str(line, refresh=False)
        bar.update(1)

    return draw, bar.close


def train_codebook(
    dim: int,
    codes: int,
    *,
    digits: int = 1,
    seed: int = 0,
    threads: int = 1,
    mini_batch: bool = False,
    no_refine: bool = False,
    batch_size: int = 4096,
    max_iterations: int = 1000,
    max_no_improvement: int = 10,
    progress: Optional[bool] = None,
    refine: Optional[bool] = None,
) -> Dict[str, Any]:
    """Trains a k-means codebook over the simplex grid exactly as p2b-codebook
    does (same options, same centroids bit for bit, whatever threads is).

    The keywords are p2b-codebook's flags (--digits, --seed, --threads,
    --mini-batch, --no-refine, --batch-size, --max-iterations,
    --max-no-improvement). progress: None (default) shows a tqdm bar when
    tqdm is installed, True requires tqdm, False shows none. refine= is the
    deprecated spelling of no_refine (refine=False is no_refine=True).

    Returns a dict: centroids (codes x dim float32), inertia, sizes (points
    per code), grid, whole, iterations, seconds, and report (the lines
    logged at INFO on "p2b.codebook"). Raises ValueError when codes exceeds
    the grid.
    """
    if refine is not None:
        warnings.warn(
            "train_codebook(refine=...) is deprecated; use no_refine= (p2b-codebook's --no-refine)",
            DeprecationWarning,
            stacklevel=2,
        )
        no_refine = not refine
    on_status, close = _progress_sink(progress)
    try:
        result: Dict[str, Any] = _p2b.train_codebook(
            dim,
            codes,
            digits=digits,
            seed=seed,
            threads=threads,
            mini_batch=mini_batch,
            no_refine=no_refine,
            batch_size=batch_size,
            max_iterations=max_iterations,
            max_no_improvement=max_no_improvement,
            on_status=on_status,
        )
    finally:
        close()
    for line in result["report"]:
        _log.info("%s", line)
    return result

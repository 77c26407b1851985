"""p2b-sim's experiments as functions that return tables.

Each simulator is one C++ run() that p2b-sim's command line and Python call
alike, on one options type per simulator: simulate_p2b() (the P2B paper's
experiment, p2b-sim's default protocol; p2b/sim_p2b.py, options
p2b.P2BOptions), simulate_fclub() (p2b/sim_fclub.py, p2b.FclubOptions),
simulate_pfcb() (p2b/sim_pfcb.py, p2b.PfcbOptions), simulate_vertical()
(p2b/sim_vertical.py, p2b.VerticalOptions) and simulate_compare()
(p2b/sim_compare.py, p2b.CompareOptions) take keywords named as p2b-sim's
long flags and return a pandas DataFrame (p2b/_run.py has what they share).
docs/simulator.md has every flag and the paper-sized settings.
"""

from __future__ import annotations

from typing import Iterable

from .sim_p2b import simulate_p2b as simulate_p2b  # re-exported
from .sim_fclub import simulate_fclub as simulate_fclub  # re-exported
from .sim_pfcb import simulate_pfcb as simulate_pfcb  # re-exported
from .sim_vertical import simulate_vertical as simulate_vertical  # re-exported
from .sim_compare import simulate_compare as simulate_compare  # re-exported


def protocols() -> Iterable[str]:
    """The protocols p2b-sim simulates, by the names its --protocol takes."""
    return ("p2b", "vertical", "fclub", "pfcb", "compare")

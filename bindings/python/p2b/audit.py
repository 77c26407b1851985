"""p2b-audit from Python: the empirical privacy audit (docs/privacy-audit.md).

    import p2b.audit
    report = p2b.audit.run(trials=4000, seed=29, broken=True)
    for row in report["rows"]:
        print(row["mechanism"], row["variant"], row["epsilon_lower_bound"], row["verdict"])

The audit itself is the p2b-audit program (it drives the C++ mechanisms);
this module runs it and returns its --json output parsed. The program is
found at `binary`, else $P2B_AUDIT, else on PATH. `python3 -m p2b.audit`
takes the program's own flags and prints its table.
"""

import json
import os
import shutil
import subprocess
import sys
from typing import Any, Dict, List, Optional, Sequence


def find_binary(binary: Optional[str] = None) -> str:
    """The p2b-audit program to run: `binary`, $P2B_AUDIT or PATH's."""
    candidate = binary or os.environ.get("P2B_AUDIT") or shutil.which("p2b-audit")
    if not candidate:
        raise FileNotFoundError(
            "p2b-audit not found: pass binary=..., set P2B_AUDIT or put it on PATH"
        )
    return candidate


def run(
    trials: int = 4000,
    seed: int = 1,
    broken: bool = False,
    only: Optional[Sequence[str]] = None,
    binary: Optional[str] = None,
) -> Dict[str, Any]:
    """Runs the audit and returns its JSON report as a dict.

    trials: runs per neighbouring input; seed: the same seed, the same
    report; broken: also run the deliberately broken variants; only: the
    mechanisms to audit (p2b_participation, central_dp, fclub_tree,
    pfcb_shares, o3m_mask, o3m_mask_norm). The report's "passed" is False
    when a shipped mechanism exceeds its claim or a broken one is missed;
    that is a result, not an error. Bad arguments raise ValueError.
    """
    args: List[str] = [
        find_binary(binary),
        "--json",
        "--trials",
        str(trials),
        "--seed",
        str(seed),
    ]
    if broken:
        args.append("--broken")
    if only:
        args += ["--only", *only]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1) or not done.stdout:
        raise ValueError(done.stderr.strip() or f"p2b-audit exited {done.returncode}")
    report: Dict[str, Any] = json.loads(done.stdout)
    return report


def main(argv: Optional[Sequence[str]] = None) -> int:
    """`python3 -m p2b.audit [p2b-audit flags]`: the program's table and status."""
    args = list(sys.argv[1:] if argv is None else argv)
    return subprocess.run([find_binary(), *args], check=False).returncode


if __name__ == "__main__":
    sys.exit(main())

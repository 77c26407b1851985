"""Misspelt keywords named as Python names them, with the likely intent.

pybind11 answers an unknown keyword with "incompatible constructor
arguments" and the whole signature; a Python function would say which
keyword it did not know. These helpers give the compiled constructors the
Python message, plus difflib's nearest valid name.
"""

from __future__ import annotations

import difflib
import re
from typing import Any, Iterable, Tuple

# One parameter of pybind11's generated signature line: "name: type".
_PARAMETER = re.compile(r"(?:\(|, )(\w+): ")


def keyword_names(function: Any) -> Tuple[str, ...]:
    """The parameter names of a pybind11 function, read from the signature
    line pybind11 puts first in its docstring (self excluded)."""
    signature = (function.__doc__ or "").lstrip().split("\n", 1)[0]
    return tuple(n for n in _PARAMETER.findall(signature) if n != "self")


def check_keywords(where: str, given: Iterable[str], allowed: Tuple[str, ...]) -> None:
    """Raises TypeError, as Python would, for the first keyword in `given`
    that `allowed` lacks, suggesting the closest allowed one."""
    for name in given:
        if name in allowed:
            continue
        message = f"{where}() got an unexpected keyword argument '{name}'"
        close = difflib.get_close_matches(name, allowed, n=1)
        if close:
            message += f"; did you mean '{close[0]}'?"
        raise TypeError(message)


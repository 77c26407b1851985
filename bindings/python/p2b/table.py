"""Tables the simulators return: a dict of column name -> numpy array.

A Table is a plain dict, so ``table["cold"]`` is a numpy array and
``pandas.DataFrame(table)`` works; ``table.to_pandas()`` does that for you
when pandas is installed. Numeric columns are float64 or int64 arrays;
text columns are lists of str.
"""

from __future__ import annotations

import csv
from typing import Any, Dict, Iterable, List, Mapping, Sequence

import numpy as np


class Table(Dict[str, Any]):
    """Columns of equal length, in order: name -> numpy array (or list of str)."""

    @property
    def n_rows(self) -> int:
        """Number of rows (0 for a table without columns)."""
        for v in self.values():
            return len(v)
        return 0

    @property
    def columns(self) -> List[str]:
        """Column names, in order."""
        return list(self.keys())

    def row(self, i: int) -> Dict[str, Any]:
        """Row i as a dict of Python scalars."""
        return {k: (v[i].item() if isinstance(v, np.ndarray) else v[i]) for k, v in self.items()}

    def to_pandas(self) -> Any:
        """The table as a pandas.DataFrame (ImportError without pandas)."""
        import pandas as pd  # optional dependency

        return pd.DataFrame(dict(self))

    @classmethod
    def from_rows(cls, rows: Sequence[Mapping[str, Any]]) -> "Table":
        """A table from dicts with the same keys (the first row fixes the order)."""
        t = cls()
        if not rows:
            return t
        for name in rows[0]:
            t[name] = _column([r[name] for r in rows])
        return t

    @classmethod
    def from_csv(cls, path: str) -> "Table":
        """A table read from a CSV file with a header row."""
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader)
            data = list(reader)
        t = cls()
        for j, name in enumerate(header):
            t[name] = _column([row[j] if j < len(row) else "" for row in data])
        return t


def _column(values: Iterable[Any]) -> Any:
    """int64 if every value is an integer, float64 if every value is a number, else str."""
    vals = list(values)
    if all(isinstance(v, (bool, np.bool_)) for v in vals):
        return np.array(vals, dtype=bool)
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vals):
        return np.array(vals, dtype=np.int64)
    if all(isinstance(v, (int, float, np.number)) for v in vals):
        return np.array(vals, dtype=np.float64)
    text = [str(v) for v in vals]
    try:
        return np.array([int(v) for v in text], dtype=np.int64)
    except ValueError:
        pass
    try:
        return np.array([float(v) if v != "" else np.nan for v in text], dtype=np.float64)
    except ValueError:
        return text

"""What every p2b.simulate_* shares: options from keywords, progress, logging,
DataFrames and their plots.

Each simulator has one options type, bound from C++ (p2b-sim reads the same
struct from its command line): keyword names are the CLI's long flags with
'-' written '_' (``--split-alpha`` -> ``split_alpha``). A misspelt keyword is
a TypeError that suggests the nearest name. Long runs draw a tqdm bar when
tqdm is installed (``progress=None``, the default, or ``True``) and nothing
with ``progress=False``; every line the native code prints goes to the
``logging`` logger ``p2b.<simulator>`` at INFO, so Python prints nothing
unless logging is configured. Results are pandas DataFrames whose
``attrs["p2b.simulator"]`` names the simulator; ``df.p2b.plot()`` (or
``p2b.plot(df)``) draws the simulator's figure with matplotlib.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import logging
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

ProgressCallback = Callable[[str, int, int], None]
LogCallback = Callable[[str], None]
PlotFunction = Callable[..., Any]

_PLOTS: Dict[str, PlotFunction] = {}


def option_names(options: Any) -> list[str]:
    """The public field names of a bound options object, in sorted order."""
    return sorted(n for n in dir(options) if not n.startswith("_") and not callable(getattr(options, n)))


def apply_keywords(function: str, options: Any, keywords: Mapping[str, Any]) -> Any:
    """Sets each keyword on `options`; unknown names raise TypeError with a hint."""
    names = option_names(options)
    for key, value in keywords.items():
        if key not in names:
            hint = difflib.get_close_matches(key, names, n=1)
            suggestion = f"; did you mean {hint[0]!r}?" if hint else ""
            raise TypeError(f"{function}() got an unexpected keyword argument {key!r}{suggestion}")
        try:
            setattr(options, key, value)
        except TypeError as e:  # pybind11's message names the C++ type only
            raise TypeError(f"{function}(): {key}={value!r}: {e}") from None
    return options


class _TqdmProgress:
    """One tqdm bar per stage, replaced when the stage changes."""

    def __init__(self, tqdm: Any, description: str) -> None:
        self._tqdm = tqdm
        self._description = description
        self._stage: Optional[str] = None
        self._bar: Any = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage != self._stage or self._bar is None:
            self.close()
            self._stage = stage
            self._bar = self._tqdm(total=total, desc=f"{self._description}: {stage}", leave=False)
        self._bar.total = total
        self._bar.n = done
        self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def tqdm_class(progress: Optional[bool]) -> Optional[Any]:
    """The tqdm bar class to draw with, or None: the one progress rule.

    progress=None: tqdm when it is installed, none otherwise; True: tqdm
    (ImportError without it); False: none.
    """
    if progress is False:
        return None
    if progress is None and importlib.util.find_spec("tqdm") is None:
        return None
    # Imported by name: tqdm is optional and ships no stubs for mypy to need.
    return importlib.import_module("tqdm.auto").tqdm


def hooks(simulator: str, progress: Optional[bool]) -> Tuple[Optional[Any], LogCallback]:
    """(progress callback or None, log callback) for one run of `simulator`;
    progress as in tqdm_class()."""
    logger = logging.getLogger(f"p2b.{simulator}")
    tqdm = tqdm_class(progress)
    bar = _TqdmProgress(tqdm, simulator) if tqdm is not None else None
    return bar, logger.info


def close_progress(bar: Optional[Any]) -> None:
    """Closes the bar hooks() made, if any (call in a finally block)."""
    if bar is not None:
        bar.close()


def frames(simulator: str, tables: Mapping[str, Mapping[str, Any]]) -> Dict[str, Any]:
    """{name: pandas.DataFrame} from the native {name: {column: values}}."""
    import pandas as pd

    out: Dict[str, Any] = {}
    for name, columns in tables.items():
        df = pd.DataFrame(dict(columns))
        df.attrs["p2b.simulator"] = simulator
        df.attrs["p2b.table"] = name
        out[name] = df
    return out


def run_simulator(
    simulator: str,
    options_type: Callable[[], Any],
    native_run: Callable[[Any, Any, LogCallback], Mapping[str, Mapping[str, Any]]],
    options: Optional[Any],
    progress: Optional[bool],
    keywords: Mapping[str, Any],
) -> Tuple[Any, Dict[str, Any]]:
    """The one body of every simulate_X: a fresh options object (a copy of
    `options` when given, which stays unmodified), the keywords set on it by
    their CLI names, one native run with progress and logging hooked up,
    and its tables as DataFrames. Returns (the options used, the frames)."""
    o = options_type()
    if options is not None:
        for name in option_names(options):
            setattr(o, name, getattr(options, name))
    apply_keywords(f"simulate_{simulator}", o, keywords)
    bar, log = hooks(simulator, False if o.quiet else progress)
    try:
        native = native_run(o, bar, log)
    finally:
        close_progress(bar)
    return o, frames(simulator, native)


def register_plot(simulator: str, function: PlotFunction) -> None:
    """Makes `function(df, ax=None, **kw)` the plot of `simulator`'s DataFrames."""
    _PLOTS[simulator] = function


def plot(df: Any, **kwargs: Any) -> Any:
    """Draws a simulator's DataFrame with the figure that simulator registered."""
    simulator = df.attrs.get("p2b.simulator")
    if simulator not in _PLOTS:
        known = ", ".join(sorted(_PLOTS)) or "none"
        raise ValueError(f"no p2b plot for a DataFrame from {simulator!r} (plots: {known})")
    return _PLOTS[simulator](df, **kwargs)


def _register_accessor() -> None:
    try:
        import pandas as pd
    except ImportError:  # DataFrames need pandas; the rest of p2b does not
        return

    @pd.api.extensions.register_dataframe_accessor("p2b")
    class _P2BAccessor:
        def __init__(self, df: Any) -> None:
            self._df = df

        def plot(self, **kwargs: Any) -> Any:
            return plot(self._df, **kwargs)


_register_accessor()

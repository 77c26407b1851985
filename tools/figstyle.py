"""What every figure the docs show shares: a colour-blind-safe palette
with a marker and a line style per series (so series differ in grey
print too), log-axis tick labels people can read, and byte-reproducible
PNGs (scripts/figures-check.sh compares committed images byte for byte).

The plot scripts in tools/ import it directly; bench/ scripts add tools/
to sys.path first.
"""
import matplotlib
import matplotlib.ticker as ticker
from cycler import cycler

# Okabe & Ito's palette (2008), safe for the common colour-vision
# deficiencies; its yellow last, as it is faint on white.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00",
           "#000000", "#F0E442"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
LINESTYLES = ["-", "--", "-.", ":"]

# Importing this module is choosing the palette: series a script does not
# colour itself ("o-", C0, C1) take these colours too.
matplotlib.rcParams["axes.prop_cycle"] = cycler(color=PALETTE)


def series(i):
    """Colour, marker and line style of the i-th series: no two of the
    first len(PALETTE) series share a colour or a marker."""
    return {"color": PALETTE[i % len(PALETTE)], "marker": MARKERS[i % len(MARKERS)],
            "linestyle": LINESTYLES[i % len(LINESTYLES)]}


def short_number(v):
    """0.5, 2, 5000, 20k, 1.5M: short enough for a crowded axis (k from
    10,000 on, where plain digits start to collide)."""
    if abs(v) >= 1e6:
        return f"{v / 1e6:g}M"
    if abs(v) >= 1e4:
        return f"{v / 1e3:g}k"
    return f"{v:g}"


def plain_log_ticks(axis, values=None, steps=(1.0, 2.0, 5.0)):
    """Label a log axis with plain numbers (0.5, 1, 2, 20k) instead of
    one lonely 10^0: at the given values, else at `steps` in each decade
    (steps=(1.0,) for an axis spanning many decades)."""
    if values is not None:
        axis.set_major_locator(ticker.FixedLocator(sorted(values)))
    else:
        axis.set_major_locator(ticker.LogLocator(base=10, subs=steps))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: short_number(v)))
    axis.set_minor_locator(ticker.NullLocator())


def legend_outside(ax, **kw):
    """A legend right of the axes, never over the data."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, **kw)


def save(fig, path, dpi=None):
    """PNG bytes that depend only on the data and the matplotlib build:
    no version string or date in the file."""
    fig.savefig(path, dpi=dpi if dpi is not None else "figure",
                metadata={"Software": None})


def legend_below(ax, ncol=2, **kw):
    """A legend under the axes, for a panel with a neighbour on its right."""
    return ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=ncol,
                     frameon=False, **kw)

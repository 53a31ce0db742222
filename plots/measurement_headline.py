"""The headline rule of a measurement row, in one place for Python (its C++ twin:
common/measurement_headline.h; keep the two alike). Standard library only, so the figure scripts
(through exp_common.py), plots/repeatability_table.py and scripts/*.py share it without matplotlib.

A row's `headline` column (common/measurement_schema.h) says which figure is its headline time:
  skew_free        skewfree_us_median (the time from the last rank's start);
  max_over_ranks   kernel_us_median (where the ranks share no clock);
  empty or absent  an untimed row, or a file written before the column (data/h200: 36 columns, every row
                   with a skew-free median): skewfree_us_median where it is a finite, positive number,
                   else kernel_us_median -- how every reader took such rows before the column existed.
"""

import math

SKEW_FREE = "skew_free"
MAX_OVER_RANKS = "max_over_ranks"
_COLUMN = {SKEW_FREE: "skewfree_us_median", MAX_OVER_RANKS: "kernel_us_median"}


def _number(row, col):
    """The cell as a float; NaN when the column is absent, the cell empty or not a number."""
    v = row.get(col)
    try:
        return float(v) if v is not None and v.strip() else math.nan
    except ValueError:
        return math.nan


def headline_figure(row):
    """SKEW_FREE or MAX_OVER_RANKS: which figure is the row's headline (the rule above). Raises
    ValueError for a headline cell that is neither nor empty."""
    cell = row.get("headline") or ""
    if cell in _COLUMN:
        return cell
    if cell:
        raise ValueError(f"unknown headline {cell!r} (expected {SKEW_FREE}, {MAX_OVER_RANKS} or empty)")
    s = _number(row, "skewfree_us_median")
    return SKEW_FREE if math.isfinite(s) and s > 0 else MAX_OVER_RANKS


def headline_us(row):
    """The row's headline time in µs (NaN when the row holds none)."""
    return _number(row, _COLUMN[headline_figure(row)])

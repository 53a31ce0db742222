"""Spearman's rank correlation, in one place for Python: standard library only, so the figure scripts
(through exp_common.py) and scripts/*.py (scripts/accuracy_table.py) share it without matplotlib."""
import math
import statistics


def _finite(v):
    return isinstance(v, (int, float)) and math.isfinite(v)


def spearman(xs, ys):
    """Spearman's rank correlation of the finite pairs (ties: average ranks); NaN below 3 pairs."""
    pairs = [(x, y) for x, y in zip(xs, ys) if _finite(x) and _finite(y)]
    if len(pairs) < 3:
        return math.nan

    def ranks(vals):
        order = sorted(range(len(vals)), key=lambda i: vals[i])
        rk = [0.0] * len(vals)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and vals[order[j + 1]] == vals[order[i]]:
                j += 1
            for k in range(i, j + 1):
                rk[order[k]] = (i + j) / 2.0 + 1.0
            i = j + 1
        return rk

    rx, ry = ranks([p[0] for p in pairs]), ranks([p[1] for p in pairs])
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else math.nan

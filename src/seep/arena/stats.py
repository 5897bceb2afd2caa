"""Statistics for the arena, standard library only.

* :func:`t_quantile`: quantiles of Student's t distribution (the library's :mod:`statistics`
  has the normal distribution only), from the regularized incomplete beta function.
* :func:`mean_ci`: the t interval of a mean; :func:`ratio_ci`: the interval of a ratio of sums
  over clusters of unequal size (baazis last different numbers of deals).
* :func:`wilson`: the Wilson score interval of a proportion.
* :func:`elo_ratings`: Elo ratings fitted by maximum likelihood to the Bradley-Terry model.

>>> round(t_quantile(0.975, 4), 4)
2.7764
>>> mean_ci([1, 2, 3, 4, 5])
(3.0, (1.0368, 4.9632))
>>> tuple(round(x, 4) for x in wilson(5, 10))
(0.2366, 0.7634)
>>> r = elo_ratings(["a", "b"], [("a", "b", 3.0, 4.0)], prior=0.0)
>>> round(r["a"] - r["b"], 2)
190.85
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from statistics import NormalDist

__all__ = [
    "elo_expected",
    "elo_ratings",
    "mean_ci",
    "ratio_ci",
    "t_quantile",
    "wilson",
]

_Z = NormalDist()


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz's method)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betai(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    ln_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    front = math.exp(ln_front)
    # The continued fraction converges fast only on one side of the mean; use the symmetry
    # I_x(a, b) = 1 - I_{1-x}(b, a) on the other.
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def _t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom."""
    tail = 0.5 * _betai(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t distribution with ``df`` > 0 degrees of freedom.

    Solved by bisection on the CDF (to about 1e-12), which is plenty for confidence intervals
    and keeps the code free of series approximations whose accuracy depends on ``df``.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if df <= 0:
        raise ValueError(f"df must be positive, got {df}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo = _Z.inv_cdf(p)  # the t quantile is never below the normal one
    hi = max(2.0 * lo, 1.0)
    while _t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


def _round(x: float, digits: int) -> float:
    # Rounded figures are what the arena reports; rounding here keeps the JSON short and
    # makes equality across runs independent of the last bits of float arithmetic order.
    return round(x, digits) + 0.0  # + 0.0 turns -0.0 into 0.0


def mean_ci(
    values: Sequence[float], confidence: float = 0.95, digits: int = 4
) -> tuple[float, tuple[float, float] | None]:
    """The mean of ``values`` and its two-sided t confidence interval (``None`` for fewer than
    two values, where no spread can be estimated). Rounded to ``digits`` decimals."""
    n = len(values)
    if n == 0:
        raise ValueError("the mean of no values")
    m = math.fsum(values) / n
    if n < 2:
        return _round(m, digits), None
    var = math.fsum((v - m) ** 2 for v in values) / (n - 1)
    half = t_quantile(0.5 + confidence / 2.0, n - 1) * math.sqrt(var / n)
    return _round(m, digits), (_round(m - half, digits), _round(m + half, digits))


def ratio_ci(
    totals: Sequence[float],
    sizes: Sequence[float],
    confidence: float = 0.95,
    digits: int = 4,
) -> tuple[float, float | None, tuple[float, float] | None]:
    """The ratio ``sum(totals) / sum(sizes)`` over clusters, its standard error and its t
    confidence interval with ``k - 1`` degrees of freedom (k = number of clusters).

    The variance is the usual linearized (delta-method) one for a ratio estimator over
    independent clusters: ``sum((y_i - r n_i)^2) / (k (k - 1) nbar^2)``. When every cluster
    has the same size this is exactly the t interval of the cluster means (:func:`mean_ci`).

    >>> ratio_ci([2, 4, 6], [2, 2, 2])[0], mean_ci([1, 2, 3])[0]
    (2.0, 2.0)
    """
    k = len(totals)
    if k == 0 or k != len(sizes):
        raise ValueError("ratio_ci needs as many sizes as totals, at least one")
    n_sum = math.fsum(sizes)
    if n_sum <= 0:
        raise ValueError("the sizes must sum to a positive number")
    r = math.fsum(totals) / n_sum
    if k < 2:
        return _round(r, digits), None, None
    nbar = n_sum / k
    ss = math.fsum((y - r * n) ** 2 for y, n in zip(totals, sizes, strict=True))
    se = math.sqrt(ss / (k * (k - 1))) / nbar
    half = t_quantile(0.5 + confidence / 2.0, k - 1) * se
    return (
        _round(r, digits),
        _round(se, digits),
        (_round(r - half, digits), _round(r + half, digits)),
    )


def wilson(successes: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval for a proportion of ``successes`` in ``n`` trials.

    Unlike the normal (Wald) interval it stays inside [0, 1] and is sensible at 0 or n
    successes. ``n = 0`` gives the uninformative (0, 1).

    >>> tuple(round(x, 4) for x in wilson(0, 10))
    (0.0, 0.2775)
    """
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in 0..n, got {successes} of {n}")
    z = _Z.inv_cdf(0.5 + confidence / 2.0)
    p = successes / n
    z2n = z * z / n
    denom = 1.0 + z2n
    centre = (p + z2n / 2.0) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2n / (4.0 * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def elo_expected(diff: float) -> float:
    """Expected score of a player rated ``diff`` Elo points above the opponent."""
    return 1.0 / (1.0 + math.pow(10.0, -diff / 400.0))


def elo_ratings(
    players: Sequence[str],
    games: Iterable[tuple[str, str, float, float]],
    *,
    prior: float = 1.0,
    anchor: str | None = None,
    anchor_rating: float | None = None,
    tol: float = 1e-12,
    max_iter: int = 100_000,
) -> dict[str, float]:
    """Elo ratings by maximum likelihood under the Bradley-Terry model.

    ``games`` holds ``(player, opponent, score, n)``: ``player`` scored ``score`` points (a
    win is 1, a draw 1/2) in ``n`` games against ``opponent``. The model is
    ``P(i beats j) = 1 / (1 + 10^((R_j - R_i) / 400))``, with a draw counted as half a win and
    half a loss, and it is fitted with Hunter's MM algorithm (Zermelo's iteration).

    ``prior`` adds that many virtual draws to every pair of players that met, so a player who
    won or lost everything still gets a finite rating (with ``prior=0`` that raises
    ``ValueError``). Ratings are only defined up to a constant: by default their mean is
    ``anchor_rating`` (1500); with ``anchor`` that player is pinned at ``anchor_rating``
    (default 0).

    >>> r = elo_ratings(["a", "b", "c"], [("b", "a", 2, 3), ("c", "b", 2, 3), ("c", "a", 4, 5)],
    ...                 prior=0.0, anchor="a")
    >>> [round(r[p], 2) for p in "abc"]
    [0.0, 120.41, 240.82]
    """
    names = list(players)
    if len(set(names)) != len(names):
        raise ValueError("each player may be named once")
    if anchor is not None and anchor not in names:
        raise ValueError(f"the anchor {anchor!r} is not one of the players")
    index = {p: i for i, p in enumerate(names)}
    k = len(names)
    wins = [[0.0] * k for _ in range(k)]  # wins[i][j]: points i scored against j
    count = [[0.0] * k for _ in range(k)]
    for p, q, score, n in games:
        i, j = index[p], index[q]
        if i == j:
            raise ValueError(f"{p!r} cannot play itself")
        if not 0 <= score <= n:
            raise ValueError(f"a score of {score} in {n} games is impossible")
        wins[i][j] += score
        wins[j][i] += n - score
        count[i][j] += n
        count[j][i] += n
    for i in range(k):
        for j in range(k):
            if i != j and count[i][j] > 0:
                wins[i][j] += prior / 2.0
                count[i][j] += prior
    total = [math.fsum(row) for row in wins]
    for i, p in enumerate(names):
        played = math.fsum(count[i])
        if played == 0:
            raise ValueError(f"{p!r} played no game: its rating is undefined")
        if total[i] <= 0 or total[i] >= played:
            raise ValueError(f"{p!r} won or lost every game: its rating is unbounded (prior > 0)")
    gamma = [1.0] * k
    for _ in range(max_iter):
        new = []
        for i in range(k):
            denom = math.fsum(
                count[i][j] / (gamma[i] + gamma[j]) for j in range(k) if count[i][j] > 0
            )
            new.append(total[i] / denom)
        # Normalize the geometric mean to 1: the likelihood does not see a common factor.
        g = math.exp(math.fsum(math.log(x) for x in new) / k)
        new = [x / g for x in new]
        change = max(abs(math.log(a) - math.log(b)) for a, b in zip(new, gamma, strict=True))
        gamma = new
        if change < tol:
            break
    ratings = [400.0 * math.log10(x) for x in gamma]
    if anchor is None:
        base = 1500.0 if anchor_rating is None else anchor_rating
        shift = base - math.fsum(ratings) / k
    else:
        base = 0.0 if anchor_rating is None else anchor_rating
        shift = base - ratings[index[anchor]]
    return {p: ratings[i] + shift for i, p in enumerate(names)}

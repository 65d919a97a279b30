"""TrueSkill for a free-for-all of one-player teams, at the speed of a game: the library's numbers, ten times sooner.

Every game arena rates is a free-for-all: each seat a team of one, equal
placings drawn. For that shape the ``trueskill`` library's factor graph is a
chain (per player a prior, a performance and a team performance; between
neighbours in placing order a difference and its truncation), and its
``rate`` spends most of its 450-500 us a four-player game building factor and
Gaussian objects and dispatching through them. :func:`rate` sends the same
messages in the same schedule on plain floats:

- the downward pass: prior (sigma widened by ``tau``), likelihood (``beta**2``),
  team performance;
- up to ten sweeps along the chain of differences (left to right, then right
  to left; a two-player game only truncates its one difference), stopping
  once the largest change of a truncated difference is at most ``min_delta``
  (0.0001), exactly as ``TrueSkill.run_schedule`` does;
- the upward pass back to each rating.

Each message is computed by the library's own arithmetic in the library's own
order (a variable's value kept incrementally, ``value / old message * new
message``; the same ``erfc`` approximation behind ``cdf``, ``pdf`` and
``ppf``; the same ``v``/``w`` functions and draw margin), so a rating equals
the library's bit for bit, not only to the 1e-9 that tests/test_trueskill_ffa.py
asks of 10,000 random games. A rating crosses the boundary as the ``mu`` and
``sigma`` a ``trueskill.Rating`` is built from, and comes back the same way:
``[Rating(*new) for new in rate(...)]`` is what ``env.rate`` returns.

Anything else the library does (teams of several, partial-play weights, a
dynamic draw probability) is left to it: :func:`rate_groups` hands such a call
over to ``trueskill`` unchanged.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

#: the environment this module computes (docs/standings.md); :func:`rate` takes these as given
MU, SIGMA, BETA, TAU, DRAW_PROBABILITY = 25.0, 25 / 3, 25 / 6, 25 / 300, 0.10
#: the library's convergence rule: sweeps stop once no truncated difference moves more than this, or after ten
MIN_DELTA, MOST_SWEEPS = 0.0001, 10

#: (mu, sigma) of one rating, as a ``trueskill.Rating`` is made from them
MuSigma = tuple[float, float]

_sqrt, _exp, _inf = math.sqrt, math.exp, math.inf
_SQRT2 = math.sqrt(2)
_PDF_SCALE = 1 / math.sqrt(2 * math.pi) * 1  # the library's pdf multiplies by abs(sigma) = 1
_BETA2 = BETA ** 2
_TAU2 = TAU ** 2


def _erfc(x: float) -> float:
    """The library's complementary error function (Numerical Recipes' ``erfcc``, to about 1.2e-7), op for op."""
    z = abs(x)
    t = 1. / (1. + z / 2.)
    r = t * _exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
            -0.82215223 + t * 0.17087277)))))))))
    return 2. - r if x < 0 else r


def _cdf(x: float) -> float:
    """The standard normal's cdf as the library computes it (through its ``erfc``)."""
    z = -x / _SQRT2
    a = abs(z)
    t = 1. / (1. + a / 2.)
    r = t * _exp(-a * a - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
            -0.82215223 + t * 0.17087277)))))))))
    return 0.5 * (2. - r if z < 0 else r)


def _pdf(x: float) -> float:
    """The standard normal's density as the library computes it."""
    return _PDF_SCALE * _exp(-(x ** 2 / 2))


def _ppf(p: float) -> float:
    """The standard normal's quantile as the library computes it (its ``erfcinv``: a guess and two Newton steps)."""
    y = 2 * p
    if y >= 2:
        inverse = -100.
    elif y <= 0:
        inverse = 100.
    else:
        zero_point = y < 1
        if not zero_point:
            y = 2 - y
        t = math.sqrt(-2 * math.log(y / 2.))
        x = -0.70711 * ((2.30753 + t * 0.27061) / (1. + t * (0.99229 + t * 0.04481)) - t)
        for _ in range(2):
            err = _erfc(x) - y
            x += err / (1.12837916709551257 * math.exp(-(x ** 2)) - x * err)
        inverse = x if zero_point else -x
    return 0 - 1 * math.sqrt(2) * inverse


#: the draw margin of two one-player teams (the library's ``calc_draw_margin(draw_probability, 2)``)
DRAW_MARGIN = _ppf((DRAW_PROBABILITY + 1) / 2.) * math.sqrt(2) * BETA


def _precision_error() -> FloatingPointError:
    return FloatingPointError('Cannot calculate correctly, set backend to "mpmath"')


def rating_values(mu: float, sigma: float) -> MuSigma:
    """The ``mu`` and ``sigma`` a ``trueskill.Rating(mu, sigma)`` reports (it keeps precision and precision-mean).

    The round trip can move either by an ulp; the library reads ratings
    through it, so :func:`rate` does too.
    """
    if sigma == 0:
        raise ValueError("sigma**2 should be greater than 0")
    pi = sigma ** -2
    tau = pi * mu
    return (tau / pi if pi else pi), (_sqrt(1 / pi) if pi else _inf)


def rate(ratings: Sequence[MuSigma], ranks: Sequence[int]) -> list[MuSigma]:
    """Rate one free-for-all: each player's ``(mu, sigma)`` and placing (lower is better, equal is a draw).

    Returns each player's new ``(mu, sigma)``, in the order given, such that
    ``trueskill.Rating(*new)`` is exactly what ``TrueSkill(...).rate`` returns
    for ``[(Rating(mu, sigma),) for ...]`` with these ranks in the environment
    of this module.
    """
    return rate_values([rating_values(mu, sigma) for mu, sigma in ratings], ranks)


def rate_values(values: Sequence[MuSigma], ranks: Sequence[int]) -> list[MuSigma]:
    """:func:`rate` for ratings already read as a ``trueskill.Rating`` reports them (see :func:`rating_values`).

    A rater that keeps each player's rating as :func:`rating_values` of the
    last result saves the round trip on the way in.
    """
    n = len(values)
    if n < 2:
        raise ValueError("Need multiple rating groups")
    if len(ranks) != n:
        raise ValueError("Wrong ranks")
    try:
        return _rate_chain(values, ranks, sorted(range(n), key=ranks.__getitem__))  # stable, as the library's
    except ZeroDivisionError:  # a precision of zero (ratings far beyond any game's): the library's infinities
        return [(rating.mu, rating.sigma) for (rating,) in _library_rate(values, ranks)]


def _rate_chain(values: Sequence[MuSigma], ranks: Sequence[int], order: list[int]) -> list[MuSigma]:
    """The message passing; ``order``: the players from first to last placed (a chain whose neighbours
    ``j``, ``j + 1`` are compared: a win, or a draw when their ranks are equal).

    Names follow the factor graph: ``t[i]`` a team performance, ``d[j] =
    t[j] - t[j+1]`` the difference made by sum factor ``j``, ``q`` truncation
    ``j``'s message; ``*p``/``*t`` (``*_pi``/``*_tau``) are a precision and a
    precision-adjusted mean. One step of a sweep is the library's ``down`` of
    sum factor ``j``, ``up`` of truncation ``j`` and ``up`` of sum factor ``j``
    (to its right variable going right, to its left going left), written out
    in one loop body with link ``j``'s state read and written as one tuple:
    a call per message, or a list per quantity, cost as much as the
    arithmetic. A cavity (a variable's value without one factor's message) that
    a step reads twice unchanged is computed once, with the same operations.

    A precision of zero, which the library carries through with infinities,
    raises ``ZeroDivisionError`` here (:func:`rate_values` then asks the library).
    """
    n = len(values)
    sqrt, exp, beta2, margin, inf = _sqrt, _exp, _BETA2, DRAW_MARGIN, _inf
    root2, pdf_scale = _SQRT2, _PDF_SCALE
    priors: list[tuple[float, float]] = []
    perfs: list[tuple[float, float]] = []
    t: list[tuple[float, float]] = []
    for player in order:  # prior, likelihood and team performance, downward
        mu, sigma = values[player]
        widened = sqrt(sigma ** 2 + _TAU2)
        pi = widened ** -2
        tau = pi * mu
        priors.append((pi, tau))
        a = 1. / (1. + beta2 * pi)
        pi, tau = a * pi, a * tau
        perfs.append((pi, tau))
        mean = 0. + tau / pi  # the library's sums start from 0 (which makes a -0.0 mean 0.0)
        pi = 1. / (1 / pi)
        t.append((pi, pi * mean))
    tops = t[:]  # each team performance's message from its player, kept for the way up
    links = n - 1
    # per link j: sum factor j's messages to t[j] (left) and t[j+1] (right), its message to d[j] (s), d[j], and
    # truncation j's message (q), each (pi, tau)
    link = [(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)] * links
    drawn = tuple([ranks[order[j]] == ranks[order[j + 1]] for j in range(links)])
    steps = _STEPS.get(drawn) or _steps(drawn)
    for _ in range(MOST_SWEEPS):
        delta = 0.
        for j, k, way, tie in steps:
            tp0, tt0 = t[j]
            tp1, tt1 = t[k]
            lp, lt, rp, rt, sp, st, dp, dt, qp, qt = link[j]
            # sum factor j down: d[j] = t[j] - t[j+1]
            p0, r0 = tp0 - lp, tt0 - lt
            p1, r1 = tp1 - rp, tt1 - rt
            m0, m1 = 0. + r0 / p0, r1 / p1
            inv0 = 1. / p0
            spi = 1. / (inv0 + 1. / p1)
            stau = spi * (m0 - m1)
            dp, dt = dp - sp + spi, dt - st + stau
            # truncation j up: the difference is won (greater than the draw margin) or drawn (within it)
            cp, ct = dp - qp, dt - qt
            sqrt_pi = sqrt(cp)
            diff, dm = ct / sqrt_pi, margin * sqrt_pi
            if tie:
                v, w = _drawn(diff, dm)
            else:  # the library's v_win and w_win: its cdf (through its erfc) and pdf, written out
                x = diff - dm
                z = -x / root2
                za = z if z >= 0. else -z
                e = 1. / (1. + za * 0.5)  # * 0.5 is / 2. exactly
                r = e * exp(-za * za - 1.26551223 + e * (1.00002368 + e * (0.37409196 + e * (0.09678418 + e * (
                    -0.18628806 + e * (0.27886807 + e * (-1.13520398 + e * (1.48851587 + e * (
                        -0.82215223 + e * 0.17087277)))))))))
                denom = 0.5 * (2. - r if z < 0. else r)
                v = (pdf_scale * exp(-(x ** 2 * 0.5)) / denom) if denom else -x
                w = v * (v + x)
                if not 0. < w < 1.:
                    raise _precision_error()
            scale = 1. - w
            npi, ntau = cp / scale, (ct + sqrt_pi * v) / scale
            qp, qt = npi + qp - dp, ntau + qt - dt
            pi_delta = dp - npi
            if pi_delta < 0.:
                pi_delta = -pi_delta
            if pi_delta == inf:
                moved = 0.
            else:
                moved = dt - ntau
                if moved < 0.:
                    moved = -moved
                root = sqrt(pi_delta)
                if root > moved:
                    moved = root
            if moved > delta or not way:
                delta = moved
            # sum factor j up, to t[j+1] = t[j] - d[j] (going right) or t[j] = d[j] + t[j+1] (going left)
            cp, ct = npi - spi, ntau - stau
            if way > 0:
                pi = 1. / (inv0 + 1. / cp)
                tau = pi * (m0 - ct / cp)
                t[k] = (tp1 - rp + pi, tt1 - rt + tau)
                link[j] = (lp, lt, pi, tau, spi, stau, npi, ntau, qp, qt)
            elif way:
                pi = 1. / (1. / cp + 1. / p1)
                tau = pi * (0. + ct / cp + m1)
                t[j] = (tp0 - lp + pi, tt0 - lt + tau)
                link[j] = (pi, tau, rp, rt, spi, stau, npi, ntau, qp, qt)
            else:
                link[j] = (lp, lt, rp, rt, spi, stau, npi, ntau, qp, qt)
        if delta <= MIN_DELTA:
            break
    # both ends of the chain: sum factor 0 to t[0] = d[0] + t[1], the last one to t[n-1] = t[n-2] - d[n-2]
    lp, lt, rp, rt, sp, st, dp, dt, qp, qt = link[0]
    pi, tau = _sum_message(dp - sp, dt - st, t[1][0] - rp, t[1][1] - rt, False)
    t[0] = (t[0][0] - lp + pi, t[0][1] - lt + tau)
    link[0] = (pi, tau, rp, rt, sp, st, dp, dt, qp, qt)
    j = links - 1
    lp, lt, rp, rt, sp, st, dp, dt, qp, qt = link[j]
    pi, tau = _sum_message(t[j][0] - lp, t[j][1] - lt, dp - sp, dt - st, True)
    t[n - 1] = (t[n - 1][0] - rp + pi, t[n - 1][1] - rt + tau)
    new: list[MuSigma] = [(0.0, 0.0)] * n
    for player, (tp, tt), (top_p, top_t), (perf_p, perf_t), (prior_p, prior_t) in zip(order, t, tops, perfs, priors):
        cp, ct = tp - top_p, tt - top_t  # team performance, likelihood and prior, upward
        mean = 0. + ct / cp
        pi = 1. / (1. / cp)
        cp, ct = (perf_p + pi) - perf_p, (perf_t + pi * mean) - perf_t
        a = 1. / (1. + beta2 * cp)
        pi, tau = prior_p + a * cp, prior_t + a * ct
        new[player] = (tau / pi, sqrt(1 / pi))
    return new


#: a sweep's steps by the draws of a chain (a few shapes recur: kept once made)
_STEPS: dict[tuple[bool, ...], list[tuple[int, int, int, bool]]] = {}


def _steps(drawn: tuple[bool, ...]) -> list[tuple[int, int, int, bool]]:
    """One sweep of the chain whose links are ``drawn`` (True: a draw) as ``(j, j + 1, way, drawn)`` steps.

    ``way`` 1 sends to the right after truncating, -1 to the left, 0 nowhere
    (two players: the library only truncates their one difference).
    """
    links = len(drawn)
    steps = [(0, 1, 0, drawn[0])] if links == 1 else ([(j, j + 1, 1, drawn[j]) for j in range(links - 1)]
                                                      + [(j, j + 1, -1, drawn[j]) for j in range(links - 1, 0, -1)])
    if len(_STEPS) < 1024:
        _STEPS[drawn] = steps
    return steps


def _drawn(diff: float, dm: float) -> tuple[float, float]:
    """The library's ``v_draw`` and ``w_draw`` of a drawn difference."""
    abs_diff = abs(diff)
    a, b = dm - abs_diff, -dm - abs_diff
    denom = _cdf(a) - _cdf(b)
    if not denom:
        raise _precision_error()
    pdf_a, pdf_b = _pdf(a), _pdf(b)
    v = (pdf_b - pdf_a) / denom
    w = v ** 2 + (a * pdf_a - b * pdf_b) / denom
    return (v * -1 if diff < 0 else v), w


def _sum_message(p0: float, r0: float, p1: float, r1: float, minus: bool) -> tuple[float, float]:
    """A sum factor's message to a variable that is ``x0 + x1`` (or ``x0 - x1``) of two others' cavities.

    As the library's ``SumFactor.update``: means add (from 0), variances add.
    """
    mean = 0. + r0 / p0 - r1 / p1 if minus else 0. + r0 / p0 + r1 / p1
    pi = 1. / (1 / p0 + 1 / p1)
    return pi, pi * mean


def _library_rate(values: Sequence[MuSigma], ranks: Sequence[int]) -> list[tuple[Any, ...]]:
    """The ``trueskill`` library's ``rate`` of one-player teams in this module's environment."""
    import trueskill

    env = trueskill.TrueSkill(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU, draw_probability=DRAW_PROBABILITY)
    return [tuple(group) for group in env.rate([(trueskill.Rating(mu, sigma),) for mu, sigma in values],
                                               ranks=list(ranks))]


def rate_groups(rating_groups: Sequence[Sequence[Any]], ranks: Sequence[int] | None = None,
                weights: Any = None) -> list[tuple[Any, ...]]:
    """``TrueSkill(...).rate`` in this module's environment for any call: one-player teams go through
    :func:`rate`, anything else (teams, weights) to the ``trueskill`` library, which stays the reference.

    Ratings are anything with ``mu`` and ``sigma``; the result is the library's: tuples of ``trueskill.Rating``.
    """
    import trueskill

    ranks = list(range(len(rating_groups))) if ranks is None else list(ranks)
    if weights is None and all(len(group) == 1 for group in rating_groups) and len(ranks) == len(rating_groups):
        new = rate([(group[0].mu, group[0].sigma) for group in rating_groups], ranks)
        return [(trueskill.Rating(mu, sigma),) for mu, sigma in new]
    env = trueskill.TrueSkill(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU, draw_probability=DRAW_PROBABILITY)
    return [tuple(group) for group in env.rate(rating_groups, ranks=ranks, weights=weights)]

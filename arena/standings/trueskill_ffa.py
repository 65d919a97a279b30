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

For each number of players and pattern of draws the whole schedule is
written out once as a function of plain statements on local variables
(:func:`_make_chain`): about 25 us a four-player game, where a loop over
the steps with each link's state in a tuple took about 31.

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
from typing import Any, Callable, Sequence

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


def rate_values(values: Sequence[MuSigma], ranks: Sequence[int], read: bool = False) -> list[MuSigma]:
    """:func:`rate` for ratings already read as a ``trueskill.Rating`` reports them (see :func:`rating_values`).

    A rater that keeps each player's rating as :func:`rating_values` of the
    last result saves the round trip on the way in; with ``read``, the new
    ratings come back read that way too (``rating_values(*new)``, computed
    in the same function: no call a player).
    """
    shape = _SHAPES.get((tuple(ranks), read)) if len(ranks) == len(values) else None
    if shape is None:
        n = len(values)
        if n < 2:
            raise ValueError("Need multiple rating groups")
        if len(ranks) != n:
            raise ValueError("Wrong ranks")
        shape = _shape(ranks, read)
    args, chain = shape
    try:
        return chain(values, *args)
    except ZeroDivisionError:  # a precision of zero (ratings far beyond any game's): the library's infinities
        new = [(rating.mu, rating.sigma) for (rating,) in _library_rate(values, ranks)]
        return [rating_values(mu, sigma) for mu, sigma in new] if read else new


#: placings seen (a few recur: 24 orders of four players without a draw), and whether the ratings come back
#: read -> the chain's arguments (the players from first to last placed, then which neighbours drew) and chain
_SHAPES: dict[tuple[tuple[int, ...], bool], tuple[tuple[int, ...], Callable[..., list[MuSigma]]]] = {}
#: the chains made, by players and reading (one a number of players: 2-3 ms to write out and compile)
_CHAINS: dict[tuple[int, bool], Callable[..., list[MuSigma]]] = {}
#: the most placings kept (a game of many players can have many)
_KEPT = 4096


def _shape(ranks: Sequence[int], read: bool) -> tuple[tuple[int, ...], Callable[..., list[MuSigma]]]:
    """The chain's arguments for ``ranks``: the order of its players from first to last placed (stable, as the
    library's), then per pair of neighbours in that order whether they drew; and the chain."""
    n = len(ranks)
    order = tuple(sorted(range(n), key=ranks.__getitem__))
    drawn = tuple([ranks[order[j]] == ranks[order[j + 1]] for j in range(n - 1)])
    chain = _CHAINS.get((n, read))
    if chain is None:
        chain = _CHAINS[n, read] = _make_chain(n, read)
    if len(_SHAPES) < _KEPT:
        _SHAPES[tuple(ranks), read] = (order + drawn, chain)
    return order + drawn, chain


def _make_chain(n: int, read: bool = False) -> Callable[..., list[MuSigma]]:
    """The message passing of a chain of ``n`` players, as one function of plain statements.

    ``chain(values, seat0, seat1, ..., tie0, tie1, ...)`` takes every
    player's ``(mu, sigma)``, the players from first to last placed and per
    neighbours in that order whether they drew, and returns each player's
    new ``(mu, sigma)`` in the order of ``values`` (with ``read``, as
    :func:`rating_values` reads it). The function is written out for its
    number of players (:func:`_chain_source`) and compiled once: every
    quantity of the factor graph is then a local variable, and a sweep is its
    steps one after another, with no list or tuple between the messages (a
    loop over the steps, reading and writing each link's state as a tuple,
    spent a fifth of the update moving numbers about).
    """
    namespace: dict[str, Any] = {"sqrt": _sqrt, "exp": _exp, "inf": _inf, "drawn_v_w": _drawn,
                                 "precision_error": _precision_error}
    exec(compile(_chain_source(n, read), f"<trueskill_ffa chain of {n}>", "exec"), namespace)
    chain: Callable[..., list[MuSigma]] = namespace["chain"]
    return chain


def _chain_source(n: int, read: bool = False) -> str:
    """The source of :func:`_make_chain`'s function for ``n`` players.

    It sends the library's messages in the library's schedule by the
    library's arithmetic, op for op (the constants written as ``repr`` of
    this module's floats, which reads back as the same float). Names follow
    the factor graph; ``{i}`` is a player's place from first, ``{j}`` a link:

    - ``a{i}`` a prior's message (sigma widened by ``tau``), ``f{i}`` the
      likelihood's (``beta**2``), ``t{i}`` a team performance and ``o{i}``
      its message from its player, kept for the way up;
    - per link ``j``, between ``t{j}`` and ``t{j+1}``: sum factor ``j``'s
      messages to its left (``l{j}``) and right (``r{j}``) variables and to
      the difference (``s{j}``), the difference ``d{j} = t{j} - t{j+1}``, and
      truncation ``j``'s message ``q{j}``;

    each as a precision (``*p``) and a precision-adjusted mean (``*t``). A
    sweep goes left to right, then right to left (two players only truncate
    their one difference); sweeps stop once no truncated difference moved by
    more than ``MIN_DELTA`` (the library's largest change, found without
    computing the changes of a sweep that has already moved more), or after ``MOST_SWEEPS``.
    """
    links = n - 1
    places = ", ".join([f"seat{i}" for i in range(n)] + [f"tie{j}" for j in range(links)])
    constants = {"beta2": _BETA2, "tau2": _TAU2, "margin": DRAW_MARGIN, "root2": _SQRT2, "pdf_scale": _PDF_SCALE,
                 "min_delta": MIN_DELTA}
    lines = [f"def chain(values, {places}, sqrt=sqrt, exp=exp, inf=inf, drawn_v_w=drawn_v_w,"
             " precision_error=precision_error):"]
    add = lines.append
    for name, value in constants.items():
        add(f"    {name} = {value!r}")
    for i in range(n):  # prior, likelihood and team performance, downward
        add(f"    mu, sigma = values[seat{i}]")
        add("    widened = sqrt(sigma ** 2 + tau2)")
        add("    pi = widened ** -2")
        add(f"    a{i}p, a{i}t = pi, pi * mu")
        add("    a = 1. / (1. + beta2 * pi)")
        add(f"    f{i}p, f{i}t = pi, tau = a * pi, a * a{i}t")
        add("    mean = 0. + tau / pi")  # the library's sums start from 0 (which makes a -0.0 mean 0.0)
        add("    pi = 1. / (1 / pi)")
        add(f"    t{i}p = o{i}p = pi")
        add(f"    t{i}t = o{i}t = pi * mean")
    for j in range(links):
        add(f"    l{j}p = l{j}t = r{j}p = r{j}t = s{j}p = s{j}t = d{j}p = d{j}t = q{j}p = q{j}t = 0.0")
    if links == 1:
        steps = [(0, 0)]
    else:
        steps = [(j, 1) for j in range(links - 1)] + [(j, -1) for j in range(links - 1, 0, -1)]
    sweep: list[str] = []
    for j, way in steps:
        _step_source(add, sweep.append, j, way, links)
    add(f"    for _ in range({MOST_SWEEPS}):")
    add("        settled = True")
    lines += sweep
    add("        if settled:")
    add("            break")
    # both ends of the chain: sum factor 0 to t0 = d0 + t1, the last one to t{n-1} = t{n-2} - d{n-2}
    add("    p0_, r0_, p1_, r1_ = d0p - s0p, d0t - s0t, t1p - r0p, t1t - r0t")
    add("    mean = 0. + r0_ / p0_ + r1_ / p1_")
    add("    pi = 1. / (1 / p0_ + 1 / p1_)")
    add("    tau = pi * mean")
    add("    t0p, t0t = t0p - l0p + pi, t0t - l0t + tau")
    add("    l0p, l0t = pi, tau")
    last = links - 1
    add(f"    p0_, r0_, p1_, r1_ = t{last}p - l{last}p, t{last}t - l{last}t, d{last}p - s{last}p, d{last}t - s{last}t")
    add("    mean = 0. + r0_ / p0_ - r1_ / p1_")
    add("    pi = 1. / (1 / p0_ + 1 / p1_)")
    add("    tau = pi * mean")
    add(f"    t{n - 1}p, t{n - 1}t = t{n - 1}p - r{last}p + pi, t{n - 1}t - r{last}t + tau")
    add(f"    new = [None] * {n}")
    for i in range(n):  # team performance, likelihood and prior, upward
        add(f"    cp, ct = t{i}p - o{i}p, t{i}t - o{i}t")
        add("    mean = 0. + ct / cp")
        add("    pi = 1. / (1. / cp)")
        add(f"    cp, ct = (f{i}p + pi) - f{i}p, (f{i}t + pi * mean) - f{i}t")
        add("    a = 1. / (1. + beta2 * cp)")
        add(f"    pi, tau = a{i}p + a * cp, a{i}t + a * ct")
        if not read:
            add(f"    new[seat{i}] = (tau / pi, sqrt(1 / pi))")
            continue
        add("    mu, sigma = tau / pi, sqrt(1 / pi)")  # and read as a trueskill.Rating(mu, sigma) reports them
        add("    if sigma == 0:")
        add("        raise ValueError('sigma**2 should be greater than 0')")
        add("    pi = sigma ** -2")
        add("    tau = pi * mu")
        add(f"    new[seat{i}] = (tau / pi if pi else pi), (sqrt(1 / pi) if pi else inf)")
    add("    return new")
    return "\n".join(lines) + "\n"


def _step_source(before: Callable[[str], None], add: Callable[[str], None], j: int, way: int, links: int) -> None:
    """One step of a sweep at link ``j``: the library's ``down`` of sum factor ``j``, ``up`` of truncation ``j``
    and ``up`` of sum factor ``j`` to ``t{j+1}`` (``way`` 1), to ``t{j}`` (-1) or to neither (0: two players).

    What a step reads of a variable that no sweep changes (``t0`` and the
    message ``l0`` of the first link, ``t{n-1}`` and ``r{n-2}`` of the last)
    goes ``before`` the sweeps, computed once, with the same operations.
    """
    k = j + 1
    fixed_left, fixed_right = j == 0, j == links - 1
    p0, r0, m0, inv0 = (f"{name}_{j}" if fixed_left else name for name in ("p0", "r0", "m0", "inv0"))
    p1, r1, m1, inv1 = (f"{name}_{j}" if fixed_right else name for name in ("p1", "r1", "m1", "inv1"))
    spi, stau = (f"{name}_{j}" if fixed_left and fixed_right else name for name in ("spi", "stau"))
    add(f"        # sum factor {j} down: d{j} = t{j} - t{k}")
    for fixed, lines in (
            (fixed_left, [f"{p0}, {r0} = t{j}p - l{j}p, t{j}t - l{j}t", f"{m0} = 0. + {r0} / {p0}",
                          f"{inv0} = 1. / {p0}"]),
            (fixed_right, [f"{p1}, {r1} = t{k}p - r{j}p, t{k}t - r{j}t", f"{m1} = {r1} / {p1}", f"{inv1} = 1. / {p1}"]),
            (fixed_left and fixed_right, [f"{spi} = 1. / ({inv0} + {inv1})", f"{stau} = {spi} * ({m0} - {m1})"])):
        for line in lines:
            before("    " + line) if fixed else add("        " + line)
    body = f"""
    dp, dt = d{j}p - s{j}p + {spi}, d{j}t - s{j}t + {stau}
    # truncation {j} up: the difference is drawn (within the draw margin) or won (beyond it)
    cp, ct = dp - q{j}p, dt - q{j}t
    sqrt_pi = sqrt(cp)
    diff, dm = ct / sqrt_pi, margin * sqrt_pi
    if tie{j}:
        v, w = drawn_v_w(diff, dm)
    else:  # the library's v_win and w_win: its cdf (through its erfc) and pdf, written out
        x = diff - dm
        z = -x / root2
        za = z if z >= 0. else -z
        e = 1. / (1. + za * 0.5)
        r = e * exp(-za * za - 1.26551223 + e * (1.00002368 + e * (0.37409196 + e * (0.09678418 + e * (
            -0.18628806 + e * (0.27886807 + e * (-1.13520398 + e * (1.48851587 + e * (
                -0.82215223 + e * 0.17087277)))))))))
        denom = 0.5 * (2. - r if z < 0. else r)
        v = (pdf_scale * exp(-(x ** 2 * 0.5)) / denom) if denom else -x
        w = v * (v + x)
        if not 0. < w < 1.:
            raise precision_error()
    scale = 1. - w
    npi, ntau = cp / scale, (ct + sqrt_pi * v) / scale
    q{j}p, q{j}t = npi + q{j}p - dp, ntau + q{j}t - dt
"""
    # the change of the truncated difference: the largest of |tau change| and sqrt(|pi change|)
    change = """    pi_delta = dp - npi
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
"""
    if way:
        body += "    if settled:\n" + "".join("    " + line + "\n" for line in change.splitlines())
        body += "        if moved > min_delta:\n            settled = False\n"
    else:
        body += change + "    settled = moved <= min_delta\n"
    body += f"    d{j}p, d{j}t, s{j}p, s{j}t = npi, ntau, {spi}, {stau}\n"
    if way:
        body += f"    # sum factor {j} up, to {f't{k} = t{j} - d{j}' if way > 0 else f't{j} = d{j} + t{k}'}\n"
        body += f"    cp, ct = npi - {spi}, ntau - {stau}\n"
    if way > 0:
        body += f"""    pi = 1. / ({inv0} + 1. / cp)
    tau = pi * ({m0} - ct / cp)
    t{k}p, t{k}t = t{k}p - r{j}p + pi, t{k}t - r{j}t + tau
    r{j}p, r{j}t = pi, tau
"""
    elif way < 0:
        body += f"""    pi = 1. / (1. / cp + {inv1})
    tau = pi * (0. + ct / cp + {m1})
    t{j}p, t{j}t = t{j}p - l{j}p + pi, t{j}t - l{j}t + tau
    l{j}p, l{j}t = pi, tau
"""
    for line in body.strip("\n").splitlines():
        add("        " + line[4:] if line.startswith("    ") else "        " + line)


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

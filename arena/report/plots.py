"""The report's charts, drawn by matplotlib as SVG text (the optional extra ``knizia-arena[report]``).

Each function takes plain data and returns one SVG document. Figures are made
with :class:`matplotlib.figure.Figure` directly, never through pyplot, so no
global state or display is involved, and the SVG is reproducible (fixed ids,
no date) so that the same results give the same files.
"""

from __future__ import annotations

import importlib.util
import io
from itertools import cycle
from typing import TYPE_CHECKING, Any

from arena.errors import ReportError

if TYPE_CHECKING:  # matplotlib is an optional dependency (the report extra)
    from matplotlib.typing import RcKeyType

#: what to install, for the command named (``arena report``, ``arena serve``)
INSTALL_HINT = ("{command} draws its charts with matplotlib: pip install 'knizia-arena[report]' "
                "(or pip install matplotlib)")
#: rc settings for every chart: text kept as text, ids that do not change from run to run
RC: dict[RcKeyType, Any] = {"svg.fonttype": "none", "svg.hashsalt": "arena-report", "font.size": 9,
      "axes.spines.top": False, "axes.spines.right": False}
#: one colour per fault kind, in every report
FAULT_COLOURS = {"timeout": "#e69f00", "illegal": "#d62728", "malformed": "#9467bd", "crash": "#333333"}


def require_matplotlib(command: str = "arena report") -> None:
    """Raise :class:`ReportError` with the install line, naming ``command``, when matplotlib is not installed
    (found, not imported: the live site imports it only when it first draws a chart)."""
    try:
        found = importlib.util.find_spec("matplotlib") is not None
    except (ImportError, ValueError):  # ValueError: a module set to None in sys.modules (how a test hides it)
        found = False
    if not found:
        raise ReportError(INSTALL_HINT.format(command=command))


def _svg(figure: Any) -> str:
    out = io.StringIO()
    figure.savefig(out, format="svg", metadata={"Date": None}, bbox_inches="tight")
    return out.getvalue()


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def bot_colours(bots: list[str]) -> dict[str, str]:
    """A colour per bot, from matplotlib's default cycle in the given order: one bot, one colour in every chart."""
    from matplotlib import rcParams

    return dict(zip(bots, cycle(rcParams["axes.prop_cycle"].by_key()["color"])))


def rating_chart(histories: dict[str, list[tuple[int, float, float]]], colours: dict[str, str], title: str) -> str:
    """Each bot's mu against the games it has played, with a band of mu ± sigma.

    :param histories: bot -> ``[(games played, mu, sigma), ...]``, starting at 0 games, in legend order.
    :param colours: bot -> colour (:func:`bot_colours`).
    """
    from matplotlib import rc_context

    with rc_context(RC):
        figure = _figure(7.5, 3.6)
        axes = figure.add_subplot()
        for bot, points in histories.items():
            games = [point[0] for point in points]
            mu = [point[1] for point in points]
            sigma = [point[2] for point in points]
            colour = colours[bot]
            axes.fill_between(games, [m - s for m, s in zip(mu, sigma)], [m + s for m, s in zip(mu, sigma)],
                              color=colour, alpha=0.15, linewidth=0)
            axes.plot(games, mu, color=colour, linewidth=1.6, label=bot)
        axes.set_title(title, loc="left")
        axes.set_xlabel("games played")
        axes.xaxis.get_major_locator().set_params(integer=True)
        axes.set_ylabel("TrueSkill mu (band: ± sigma)")
        axes.grid(True, alpha=0.3)
        axes.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
        return _svg(figure)


def heat_map(bots: list[str], shares: list[list[float | None]], title: str) -> str:
    """The head-to-head table as a heat map: row bot above column bot, as a share of their meetings.

    :param shares: ``shares[i][j]`` in 0..1, or None when the two never met (or i == j).
    """
    from matplotlib import colormaps, rc_context

    size = max(3.2, 0.75 * len(bots) + 1.6)
    with rc_context(RC):
        figure = _figure(size + 1.2, size)
        axes = figure.add_subplot()
        masked = [[float("nan") if value is None else value for value in row] for row in shares]
        colour_map = colormaps["RdYlGn"]
        image = axes.imshow(masked, cmap=colour_map, vmin=0, vmax=1)
        axes.set_xticks(range(len(bots)), labels=bots, rotation=35, ha="right")
        axes.set_yticks(range(len(bots)), labels=bots)
        axes.set_xlabel("opponent")
        axes.set_ylabel("bot")
        axes.spines[:].set_visible(False)
        for row, values in enumerate(shares):
            for column, value in enumerate(values):
                dark = value is not None and _luminance(colour_map(value)) < 0.45
                axes.text(column, row, "-" if value is None else f"{100 * value:.0f}%",
                          ha="center", va="center", color="white" if dark else "#1d232b")
        figure.colorbar(image, ax=axes, label="share of meetings finished above", shrink=0.8)
        axes.set_title(title, loc="left")
        return _svg(figure)


def _luminance(rgba: tuple[float, ...]) -> float:
    red, green, blue = rgba[:3]
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def faults_chart(counts: dict[str, dict[str, int]], kinds: list[str], title: str) -> str:
    """Faults per bot as horizontal bars stacked by kind (timeout, illegal, crash, malformed)."""
    from matplotlib import rc_context

    bots = list(counts)
    with rc_context(RC):
        figure = _figure(7.5, max(1.8, 0.45 * len(bots) + 1.2))
        axes = figure.add_subplot()
        left = [0] * len(bots)
        for kind in kinds:
            widths = [counts[bot].get(kind, 0) for bot in bots]
            axes.barh(bots, widths, left=left, label=kind, height=0.6, color=FAULT_COLOURS.get(kind))
            left = [a + b for a, b in zip(left, widths)]
        axes.invert_yaxis()
        axes.set_xlabel("faults")
        axes.xaxis.get_major_locator().set_params(integer=True)
        axes.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
        axes.set_title(title, loc="left")
        return _svg(figure)


def sprt_chart(llrs: list[float], lower: float | None, upper: float | None, title: str) -> str:
    """A comparison's log-likelihood ratio after each deal, between the SPRT's two bounds.

    :param llrs: the LLR after deal 1, 2, ...; ``lower``/``upper`` the bounds (None without an SPRT).
    """
    from matplotlib import rc_context

    with rc_context(RC):
        figure = _figure(7.5, 3.2)
        axes = figure.add_subplot()
        deals = list(range(1, len(llrs) + 1))
        axes.plot(deals, llrs, color="#1f77b4", linewidth=1.6, label="LLR")
        if lower is not None and upper is not None:
            axes.axhline(upper, color="#d62728", linestyle="--", linewidth=1, label=f"regression ({upper:+.2f})")
            axes.axhline(lower, color="#2ca02c", linestyle="--", linewidth=1, label=f"not worse ({lower:+.2f})")
        axes.axhline(0, color="#888888", linewidth=0.6)
        axes.set_title(title, loc="left")
        axes.set_xlabel("deals counted (blocks)")
        axes.xaxis.get_major_locator().set_params(integer=True)
        axes.set_ylabel("log-likelihood ratio")
        axes.grid(True, alpha=0.3)
        axes.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
        return _svg(figure)

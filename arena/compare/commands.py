"""``arena compare``, a built-in plugin: a regression test of one bot against another."""

from __future__ import annotations

import itertools
import os
import re

import click

from arena import hookimpl
from arena.entrants import check_entrants_play, parse_spec
from arena.errors import CompareError
from arena.match import Limits
from arena.plugins import get_plugins
from arena.runs.beside import serve_options, start_beside
from arena.runs.options import exit_status_of_signal, limit_options, parse_option_pairs, run_options
from arena.runs.warmup import import_during_play
from arena.seating import bot_prints_to_stderr

DEFAULT_MAX_GAMES = 2000


def _sprt_bounds(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[float, float] | None:
    if value is None:
        return None
    from arena.compare.stats import MAX_ELO, score_of_elo  # statistics and the SPRT: once a comparison is asked for

    elo0, _, elo1 = value.partition(",")
    try:
        bounds = float(elo0), float(elo1)
    except ValueError:
        raise click.BadParameter(f"expected ELO0,ELO1 such as 0,-20, got {value!r}") from None
    if not all(-MAX_ELO <= bound <= MAX_ELO for bound in bounds):  # NaN fails too
        raise click.BadParameter(f"each bound must be an Elo-like difference from -{MAX_ELO} to {MAX_ELO} "
                                 f"({MAX_ELO} is a mean pair score of {score_of_elo(MAX_ELO):.1%}), got {value!r}")
    if bounds[0] == bounds[1]:
        raise click.BadParameter(f"ELO1 must differ from ELO0: below it asks for a regression (e.g. 0,-20), "
                                 f"above it for an improvement (e.g. 0,20), got {value!r}")
    return bounds


def question_and_bounds(bounds: tuple[float, float] | None, improvement: bool) -> tuple[str, tuple[float, float]]:
    """The question asked and the SPRT bounds: ``--sprt`` as given (its order names the question), else the
    default bounds of the question ``--improvement`` chose; a flag contradicting the bounds is refused."""
    from arena.compare.stats import DEFAULT_BOUNDS, IMPROVEMENT_TEST, REGRESSION_TEST, question_of

    if bounds is None:
        question = IMPROVEMENT_TEST if improvement else REGRESSION_TEST
        return question, DEFAULT_BOUNDS[question]
    question = question_of(*bounds)
    if improvement and question != IMPROVEMENT_TEST:
        raise click.BadParameter(f"--improvement asks whether the candidate is better: ELO1 must be above ELO0 "
                                 f"(e.g. 0,20), got {bounds[0]:g},{bounds[1]:g}", param_hint="--sprt")
    return question, bounds


def default_name(game: str, candidate: str, baseline: str) -> str:
    """``compare-GAME-CANDIDATE-vs-BASELINE``, with characters a folder name should not hold made ``_``."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", f"compare-{game}-{candidate}-vs-{baseline}")


@click.command()
@click.argument("game_name", metavar="GAME")
@click.option("--candidate", "candidate_spec", required=True, metavar="BOT", help="The bot under test (new version).")
@click.option("--baseline", "baseline_spec", required=True, metavar="BOT", help="The bot it must not be worse than.")
@click.option("--field", "field_specs", multiple=True, metavar="BOT",
              help="A bot for the other seats (repeat; repeated in order to fill them)  [default: the baseline]")
@click.option("--players", type=click.IntRange(2), metavar="N",
              help="Seats per game  [default: 1 + the --field bots given, else the game's fewest]")
@click.option("--option", "-o", "option_pairs", multiple=True, metavar="K=V",
              help="A game option (repeat); V is read as JSON when it parses.")
@click.option("--sprt", "bounds", metavar="ELO0,ELO1", callback=_sprt_bounds,
              help="H0: Elo-like difference ELO0; H1: ELO1. ELO1 < ELO0 asks for a regression (H0 no regression), "
                   "ELO1 > ELO0 for an improvement (H0 no gain)  [default: 0,-20; with --improvement 0,20]")
@click.option("--improvement", is_flag=True,
              help="Ask whether the candidate is better (fishtest's gainer test): exit 0 on an improvement, "
                   "1 when it is not better  [default: ask whether it is worse]")
@click.option("--alpha", type=float, default=0.05, show_default=True,
              help="Chance of accepting H1 when the candidate is as strong as ELO0 (a false alarm, or a false gain).")
@click.option("--beta", type=float, default=0.05, show_default=True,
              help="Chance of missing a difference as large as ELO1 (a regression, or an improvement).")
@click.option("--no-sprt", is_flag=True, help="Fixed size: play all of --max-games, judge by the confidence interval.")
@click.option("--max-games", type=click.IntRange(1), default=DEFAULT_MAX_GAMES, show_default=True, metavar="N",
              help="Most games to play (whole deals of 2 x players games).")
@click.option("--deals", type=click.IntRange(1), metavar="N", help="Most deals to play; replaces --max-games.")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None, metavar="N",
              help="A public seed for every deal and bot seed (anyone holding it can compute the deals)  "
                   "[default: a secret drawn on the first run and kept in the results store]")
@click.option("--name", metavar="NAME", help="Results go to ROOT/NAME  [default: compare-GAME-CANDIDATE-vs-BASELINE]")
@run_options
@serve_options
@limit_options
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON instead of the summary.")
@click.pass_context
def compare(ctx: click.Context, game_name: str, candidate_spec: str, baseline_spec: str, field_specs: tuple[str, ...],
            players: int | None, option_pairs: tuple[str, ...], bounds: tuple[float, float] | None,
            improvement: bool, alpha: float, beta: float, no_sprt: bool, max_games: int, deals: int | None,
            seed: int | None, name: str | None, jobs: int | None, scheduler: str | None, sandbox: str, root: str,
            fresh: bool, start_ms: int, move_ms: int, bank_ms: int, memory_mb: int, as_json: bool) -> None:
    """Test whether CANDIDATE plays GAME worse (or, with --improvement, better) than BASELINE, with paired games
    and a sequential test.

    Paired duplicate games: every deal is played twice in each seat rotation,
    once with the candidate and once with the baseline in the seat under
    test, against the same field bots with the same cards and the same bot
    seeds. A pair compares the two games' rank scores in that seat ((P - rank)
    / (P - 1), ties sharing their places); the pairs of one deal (one per seat)
    form a block, the unit of the statistics.

    After each block, in schedule order (so the verdict is the same for any
    -j), the SPRT weighs H0, an Elo-like difference of ELO0 (default 0: no
    regression), against H1, ELO1 (default -20: a regression), where the
    Elo-like difference of a mean pair score q is 400 log10(q / (1 - q)) and
    q = (1 + score difference) / 2. It stops at the first block where its
    log-likelihood ratio leaves [log(beta / (1 - alpha)), log((1 - beta) / alpha)].
    With --no-sprt it plays all of --max-games and judges by the 95% interval.

    With --improvement (or --sprt bounds with ELO1 above ELO0, default 0,20)
    the question is the other way round, as in fishtest's gainer tests: H0
    no gain (ELO0), H1 a gain of ELO1; H1 accepted is an IMPROVEMENT (exit
    0), H0 accepted is "not better" (exit 1). The summary, compare.json
    ("question", "verdict") and the step summary say which was asked.

    The summary shows the score and money differences per pair with 95%
    confidence intervals, the pairs won, drawn and lost, and the test; --json
    prints it as JSON; with $GITHUB_STEP_SUMMARY set, it is appended there in
    Markdown. Games are stored in ROOT/NAME like a tournament's: the same
    command resumes, and `arena leaderboard`, `arena export` and
    `arena replay` read them.

    \b
    Exit status:
      0  not worse: the SPRT accepted H0 (LLR <= log(beta / (1 - alpha)));
         with --no-sprt, the 95% interval of the score difference reaches 0 or above
      1  regression: the SPRT accepted H1 (LLR >= log((1 - beta) / alpha));
         with --no-sprt, the whole 95% interval is below 0
      2  bad usage or input
      3  no verdict: --max-games reached (or, with --no-sprt, fewer than 2 deals)
      130 stopped by Ctrl-C, 143 by SIGTERM (finished games are kept; run again to go on)
    With --improvement (an improvement test), 2, 3, 130 and 143 as above and:
      0  improvement: the SPRT accepted H1; with --no-sprt, the whole 95% interval is above 0
      1  not better: the SPRT accepted H0; with --no-sprt, the interval reaches 0 or below

    \b
    Example:
      arena compare modern-art --candidate appraiser --baseline random --players 4 -j 2
      arena compare modern-art --candidate appraiser --baseline random --players 4 --improvement
    """
    from arena.sandbox.own_files import with_neighbours
    from arena.sandbox.probe import start_probe, weaknesses

    if sandbox == "process":  # its trial interpreter boots while the rest is imported and the bots read
        start_probe()
    # imported here, not at start-up: the schedule and the pools pull in numpy (0.4 s for every arena command)
    from arena.compare.design import Design, distinct_names
    from arena.compare.runner import Interrupted, run_comparison
    from arena.compare.stats import Sprt

    plugins = get_plugins()
    game = plugins.game(game_name)
    specs = [candidate_spec, baseline_spec, *(field_specs or [baseline_spec])]
    # every entrant knows the others' files: none is shown a folder holding, or lying in, another's
    candidate, baseline, *field = with_neighbours([parse_spec(spec, plugins) for spec in specs])
    if players is None:
        players = len(field_specs) + 1 if field_specs else game.min_players
    if len(field) > players - 1:
        raise CompareError(f"{len(field)} --field bots do not fit the {players - 1} other seats of a "
                           f"{players}-player game (--players {players})")
    check_entrants_play(game, [candidate, baseline, *field], plugins)
    options = game.check_options(players, parse_option_pairs(option_pairs))
    question, (elo0, elo1) = question_and_bounds(bounds, improvement)
    sprt = None if no_sprt else Sprt(elo0, elo1, alpha, beta)
    renamed = distinct_names(candidate, baseline)
    design = Design(
        name=name or default_name(game.name, candidate.name, baseline.name),
        game=game.name, players=players, options=options, candidate=renamed[0], baseline=renamed[1],
        field=tuple(itertools.islice(itertools.cycle(field), players - 1)), seed=seed,
        limits=Limits(start_ms=start_ms, move_ms=move_ms, bank_ms=bank_ms, memory_mb=memory_mb),
    )
    if deals is not None:
        max_games = deals * design.games_per_block
    beside = start_beside(ctx, os.path.join(root, design.name), lambda line: click.echo(line, err=True))
    import_during_play("arena.compare.report")  # tabulate, for the summary: imported while the games are played
    click.echo(weaknesses() if sandbox == "process" else "sandbox: none (bots run in the runner's processes, "
               "trusted code only)", err=True)
    try:
        with bot_prints_to_stderr():
            outcome = run_comparison(design, plugins, sprt=sprt, max_games=max_games, root=root, jobs=jobs,
                                     scheduler=scheduler, sandbox=sandbox, fresh=fresh, question=question,
                                     announce=lambda line: click.echo(line, err=True))
    except Interrupted as stop:
        click.echo(f"stopped: {stop}", err=True)
        ctx.exit(exit_status_of_signal(stop.signum))
    from arena.compare.report import EXIT_STATUS, append_step_summary, render_json, render_markdown, render_text

    append_step_summary(render_markdown(outcome))
    click.echo(render_json(outcome) if as_json else render_text(outcome))
    beside.hold(lambda line: click.echo(line, err=True))
    ctx.exit(EXIT_STATUS[outcome["verdict"]])


@hookimpl
def register_commands(cli: click.Group) -> None:
    cli.add_command(compare)

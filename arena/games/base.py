"""What a game plugin provides: the :class:`Game` description and its :class:`GameState`.

A game is pure rules: no I/O, no clocks, and no randomness after the setup.
The runner (``arena.match``) drives a state by reading ``state.seat``,
``state.decision`` and ``state.legal`` and calling ``state.apply(action)``
until ``state.seat is None``. Engines apply forced moves (a decision with a
single legal action) themselves, so every decision the runner sees is a real
choice (protocol.md section 1).

Events: ``state.log`` is an append-only list of ``(audience, event)`` pairs;
``audience`` is ``None`` for a public event or a seat number for a private one
(a seat's own dealt cards). The runner sends each seat the events it may see
since its previous decision.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, TypeAlias, TypedDict

from arena.errors import OptionError, PlayerCountError

#: A JSON object of the protocol (an action, a ``legal`` object, a view, a setup,
#: an event, the options): which keys it holds depends on the decision or event kind.
JSONObject: TypeAlias = dict[str, Any]
#: One entry of ``state.log``: ``(audience, event)``, audience ``None`` for a public event.
LogEntry: TypeAlias = tuple[int | None, JSONObject]
#: An entry as an engine may note it cheaply: ``(audience, event)``, or ``(audience, kind, field, ...)``
#: (one field or more; atoms and tuples) that the engine's renderer turns into the event when the log is read.
CompactEntry: TypeAlias = tuple[Any, ...]


class GameResult(TypedDict):
    """A finished game's result by seat: money, and competition ranks (1 = most money)."""

    money: list[int]
    ranks: list[int]


@dataclass(frozen=True)
class Option:
    """A game option: its JSON type, default, one-line help, and an applicability check."""

    type: type
    default: Any
    help: str
    #: ``applies(players) -> str | None``: an error message when the option
    #: cannot be switched on for that many players, else None.
    applies: Callable[[int], str | None] = field(default=lambda players: None)


class GameState:
    """The full state of one game in progress (every hand, the deck order).

    Attributes the runner reads after every ``apply`` (kept up to date by the
    engine, never recomputed on read):

    - ``seat``: the seat that must decide now, or ``None`` when the game is over;
    - ``decision``: the decision kind (protocol.md's names), or ``None``;
    - ``legal``: the ``legal`` object of protocol.md for that decision;
    - ``log``: the append-only ``(audience, event)`` list (the runner asks its
      length through ``log_length`` and reads it only for a bot that reads events);
    - ``players``: the number of seats.
    """

    __slots__ = ()
    players: int
    seat: int | None
    decision: str | None
    legal: JSONObject | None
    log: list[LogEntry]

    def log_length(self) -> int:
        """How many entries ``log`` holds now; an engine keeping compact entries (:class:`CompactLogState`)
        answers without building their events, which the runner then builds only for a bot that reads them."""
        return len(self.log)

    def log_counter(self) -> Callable[[], int]:
        """A function that answers :meth:`log_length` for the rest of this state's life (the runner
        calls it once per decision, so an engine may return a cheaper function than the method)."""
        return self.log_length

    def apply(self, action: JSONObject) -> None:
        """Apply the current seat's action, then every forced move after it.

        Raises :class:`arena.errors.MalformedAction` for a wrong shape (missing
        or unknown key, wrong type, unknown word) and
        :class:`arena.errors.IllegalAction` for a well-formed action outside
        ``legal`` or the rules; the message names the decision, the action and
        what was legal. A refused action leaves the state unchanged.
        """
        raise NotImplementedError

    def default_action(self) -> JSONObject:
        """The action applied after a fault (protocol.md's default column)."""
        raise NotImplementedError

    def view(self, seat: int) -> JSONObject:
        """Everything ``seat`` may know now, and nothing more (JSON-compatible)."""
        raise NotImplementedError

    def money(self) -> list[int]:
        """Each seat's money now."""
        raise NotImplementedError

    def result(self) -> GameResult:
        """``{"money": [...], "ranks": [...]}`` by seat; only once the game is over."""
        money = self.money()
        return GameResult(money=money, ranks=competition_ranks(money))

    def clone(self) -> "GameState":
        """An independent copy, cheap enough for search bots to call per simulation."""
        raise NotImplementedError


#: a clone's ``_log`` until its ``log`` is read: the clone builds its own events then (equal ones)
UNBUILT: tuple[()] = ()


class CompactLogState(GameState):
    """A state that notes its events as compact tuples and builds ``log`` from them only when read.

    The engine appends ``(audience, event)`` pairs or ``(audience, kind, field,
    ...)`` tuples to ``self._entries`` (allocating no dict, and leaving the
    garbage collector nothing to trace); ``log`` renders the new ones with the
    engine's ``renderers`` on each read. In most games nobody reads the log: the
    runner asks only ``log_length`` and builds events for the bots that read them.
    """

    __slots__ = ("_entries", "_log")
    _entries: list[CompactEntry]
    #: the events built so far; :data:`UNBUILT` in a clone until its log is read (search bots never read it)
    _log: list[LogEntry] | tuple[()]

    #: each compact kind's event builder, called with the entry's fields (set by each engine)
    renderers: dict[str, Callable[..., JSONObject]] = {}

    @property
    def log(self) -> list[LogEntry]:
        built, entries = self._log, self._entries
        if type(built) is not list:  # UNBUILT
            built = self._log = []
        if len(built) < len(entries):
            renderers = self.renderers
            built.extend([entry if len(entry) == 2 else (entry[0], renderers[entry[1]](*entry[2:]))
                          for entry in entries[len(built):]])
        return built

    @log.setter
    def log(self, pairs: list[LogEntry]) -> None:
        self._entries = list(pairs)
        self._log = list(pairs)

    def log_length(self) -> int:
        return len(self._entries)

    def log_counter(self) -> Callable[[], int]:
        """The entry list's own ``__len__``: ``_entries`` is never rebound after a state is made."""
        return self._entries.__len__


class Game:
    """A game's description and factory; registered through ``register_games``."""

    name: str
    title: str
    min_players: int
    max_players: int
    options: dict[str, Option] = {}

    def check_options(self, players: int, options: JSONObject) -> JSONObject:
        """The options in force (defaults filled in), or :class:`OptionError`."""
        if not self.min_players <= players <= self.max_players:
            raise PlayerCountError(
                f"{self.name} takes {self.min_players} to {self.max_players} players, got {players}"
            )
        full: JSONObject = {}
        for key, value in options.items():
            spec = self.options.get(key)
            if spec is None:
                known = ", ".join(sorted(self.options)) or "none"
                raise OptionError(f"{self.name} has no option {key!r} (options: {known})")
            if not _is_type(value, spec.type):
                raise OptionError(
                    f"option {key} of {self.name} takes a {spec.type.__name__}, got {value!r}"
                )
            if value != spec.default:
                problem = spec.applies(players)
                if problem:
                    raise OptionError(f"option {key} of {self.name}: {problem}")
            full[key] = value
        for key, spec in self.options.items():
            full.setdefault(key, spec.default)
        return full

    def random_setup(self, players: int, options: JSONObject, rng: random.Random) -> JSONObject:
        """A setup (protocol.md section 5) shuffled with ``rng``."""
        raise NotImplementedError

    def check_setup(self, setup: JSONObject, options: JSONObject) -> None:
        """Raise :class:`arena.errors.SetupError` when protocol.md section 5 refuses ``setup``."""
        raise NotImplementedError

    def new_state(self, setup: JSONObject, options: JSONObject) -> GameState:
        """The state at the first real decision of a checked setup (forced moves applied)."""
        raise NotImplementedError

    def determinize(self, view: JSONObject, options: JSONObject, rng: random.Random) -> GameState:
        """A full state consistent with ``view``: hidden cards dealt at random from those unseen.

        Search bots call this, then ``clone`` and ``apply`` to simulate.
        """
        raise NotImplementedError

    def determinizer(self, view: JSONObject, options: JSONObject) -> Callable[[random.Random], GameState]:
        """``sample(rng)``: :meth:`determinize` of this ``view``, the view read once for many samples.

        A search bot draws thousands of determinizations of one view per
        decision; an engine may read the view here once and deal each sample
        from what it prepared. ``sample(rng)`` gives exactly the state
        ``determinize(view, options, rng)`` would, drawing the same numbers.
        """
        determinize = self.determinize

        def sample(rng: random.Random) -> GameState:
            return determinize(view, options, rng)

        return sample

    def narrate(self, log: list[LogEntry], players: list[str]) -> list[str]:
        """The readable account of a finished game, one line per line, from its full log."""
        raise NotImplementedError


def check_setup_keys(setup: object, required: tuple[str, ...], keys: tuple[str, ...],
                     problem: Callable[[str], Exception]) -> JSONObject:
    """Refuse a setup that is not a JSON object, lacks a required key or has an unknown one; the setup when sound."""
    if not isinstance(setup, dict):
        raise problem(f"expected a JSON object, got {setup!r}")
    missing = [key for key in required if key not in setup]
    if missing:
        raise problem(f"missing key {missing[0]!r} (keys: {', '.join(keys)})")
    unknown = sorted(key for key in setup if key not in keys)
    if unknown:
        raise problem(f"unknown key {unknown[0]!r} (keys: {', '.join(keys)})")
    return setup


def check_card_ids(cards: list[int], count: int, problem: Callable[[str], Exception]) -> None:
    """Refuse a setup's card ids that are unknown or appear twice (protocol.md section 5).

    ``problem(message)`` makes the game's :class:`arena.errors.SetupError`.
    """
    seen: set[int] = set()
    for card in cards:
        if not 0 <= card < count:
            raise problem(f"unknown card id {card} (ids are 0 to {count - 1})")
        if card in seen:
            raise problem(f"card {card} appears twice")
        seen.add(card)


def check_setup_money(setup: JSONObject, players: int, problem: Callable[[str], Exception]) -> None:
    """Refuse a setup's ``money`` (when given) unless it lists one whole, non-negative number per seat."""
    if "money" not in setup:
        return
    money = setup["money"]
    if not isinstance(money, list) or len(money) != players or not all(type(m) is int for m in money):
        raise problem(f"money must list {players} integers, got {money!r}")
    if any(m < 0 for m in money):
        raise problem(f"money cannot be negative, got {money!r}")


#: the bits ``random.Random`` draws for a number below ``last + 1``, by ``last`` (shuffles of up to 1,024 items)
_BITS = tuple((last + 1).bit_length() for last in range(1024))


def shuffle(items: list[Any], rng: random.Random) -> None:
    """``rng.shuffle(items)``, with the same result, in under half the time for a plain ``random.Random``.

    Every game's setup and determinization shuffles its cards, so this runs
    once per game and per search sample: the method's draw per card
    (``_randbelow``) is inlined here, drawing the same bits in the same order,
    with each position's bit count read from a table rather than computed.
    Any other generator (a subclass, ``SystemRandom``) shuffles itself.
    """
    if type(rng) is not random.Random or len(items) > len(_BITS):
        rng.shuffle(items)
        return
    getrandbits = rng.getrandbits
    bits = _BITS
    for last in range(len(items) - 1, 0, -1):
        other = getrandbits(bits[last])
        while other > last:
            other = getrandbits(bits[last])
        items[last], items[other] = items[other], items[last]


def seat_names(players: list[str]) -> list[str]:
    """Names for a readable account: an entry's name, with ``[seat]`` added when seats share it."""
    return [f"{name}[{seat}]" if players.count(name) > 1 else name for seat, name in enumerate(players)]


def competition_ranks(money: list[int]) -> list[int]:
    """Rank 1 = most money; equal money, equal rank; 50, 50, 30 gives 1, 1, 3."""
    return [1 + sum(1 for other in money if other > mine) for mine in money]


def _is_type(value: Any, kind: type) -> bool:
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)

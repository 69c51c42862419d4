"""Bet menus: the actions an abstract betting tree keeps at a state.

One home for the menus of the solver (:mod:`pokerbot.solver.tree`), the action
abstraction (:mod:`abstraction.actions`), the blueprint
(:mod:`blueprint.abstract_game`) and the real-time agent: those modules re-export
the names below.

A *bet menu* is any callable ``menu(state) -> list[Action]`` (:data:`BetMenuFn`)
returning legal actions at ``state``. Two are built in: :func:`limit_menu` (every
legal kind; the exact menu of a limit game) and :class:`PotFractionMenu`, the one
menu type of no-limit abstractions.

Pot-fraction convention: a raise of fraction ``f`` means

    raise-to = max_spent + f * (pot after calling)

where ``pot after calling`` is the pot once the player to act has called
(``state.pot + state.to_call()``). So ``f = 1`` is a pot-sized raise: facing a
bet of 100 into 300 the pot after calling is 500 and a pot raise goes to
``max_spent + 500``. Every size is rounded to whole chips and clamped into
``State.raise_bounds()`` (a size below the minimum raise becomes the minimum
raise; above the stack, all-in); duplicates are dropped.

>>> from pokerbot.gamedef import load_game
>>> s = State.initial(load_game("hunl"))
>>> raise_size_for_fraction(s, 1.0), [str(a) for a in PotFractionMenu.tiny()(s)]
(300, ['f', 'c', 'r300', 'r20000'])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from pokerbot.errors import IllegalActionError, SolverError
from pokerbot.state import CALL, FOLD, RAISE, Action, ActionType, State, raise_to

__all__ = [
    "BetMenuFn",
    "MenuError",
    "PotFractionMenu",
    "fraction_of_raise",
    "limit_menu",
    "menu_from_spec",
    "menu_spec",
    "raise_size_for_fraction",
]

#: A bet menu: the actions to keep at a state (each must be legal there).
BetMenuFn = Callable[[State], list[Action]]

#: Per round (sorted), the pot fractions per raise depth: ``((round, (depth0, depth1, ...)), ...)``.
Schedule = tuple[tuple[int, tuple[tuple[float, ...], ...]], ...]


class MenuError(SolverError, IllegalActionError):
    """A bad bet menu description (both a :class:`SolverError` and an :class:`IllegalActionError`,
    the errors the solver's and the action abstraction's menus raised before they were one type)."""


def raise_size_for_fraction(state: State, fraction: float) -> int:
    """Raise-to total (unclamped, whole chips) of a raise of ``fraction`` of the pot after calling.

    >>> from pokerbot.gamedef import load_game
    >>> raise_size_for_fraction(State.initial(load_game("hunl")), 1.0)
    300
    """
    pot_after_call = state.pot + state.to_call()
    return int(round(state.max_spent + fraction * pot_after_call))


def fraction_of_raise(state: State, size: int) -> float:
    """Inverse of :func:`raise_size_for_fraction`: the pot fraction of a raise to ``size``."""
    pot_after_call = state.pot + state.to_call()
    return (size - state.max_spent) / pot_after_call


def limit_menu(state: State) -> list[Action]:
    """Every legal kind of action: fold (when facing a bet), call, raise (when legal).

    The exact menu of a limit game (the default there); in a no-limit game its raise
    has no size, so it is not a legal menu there.

    >>> from pokerbot.gamedef import load_game
    >>> [str(a) for a in limit_menu(State.initial(load_game("leduc")))]
    ['c', 'r']
    """
    kinds = {ActionType.FOLD: FOLD, ActionType.CALL: CALL, ActionType.RAISE: RAISE}
    return [kinds[kind] for kind in state.legal_kinds()]


class _Default:
    """Marks ``max_raises`` left out (its default depends on the form of ``fractions``)."""


_DEFAULT = _Default()


def _schedule(fractions: Sequence[float] | Mapping[int, Sequence[Sequence[float]]]) -> Schedule:
    """The sorted per-round, per-depth schedule of a flat fraction list or a round mapping."""
    if isinstance(fractions, Mapping):
        if not fractions:
            raise MenuError("a bet menu needs fractions for at least one round")
        rounds = []
        for rnd, depths in fractions.items():
            if isinstance(rnd, bool) or int(rnd) != rnd or rnd < 0:
                raise MenuError(f"bet menu round must be a non-negative int, got {rnd!r}")
            rounds.append((int(rnd), tuple(tuple(float(f) for f in d) for d in depths)))
        if 0 not in dict(rounds):
            raise MenuError("a bet menu must list round 0")
        return tuple(sorted(rounds))
    return ((0, (tuple(float(f) for f in fractions),)),)


@dataclass(frozen=True, init=False, repr=False)
class PotFractionMenu:
    """Fold (when facing a bet), call, raises of fractions of the pot after calling, and all-in.

    ``fractions`` is either one list of pot fractions, offered at every raise in
    every round, or a mapping ``{round: [[fractions at depth 0], [depth 1], ...]}``
    where the *raise depth* is the number of raises already made in the round (0 =
    opening bet); depths past the last listed reuse the last list, a round missing
    from the mapping uses the largest listed round below it (round 0 must be
    listed), and an empty list offers no sized raise.

    ``all_in`` adds the all-in raise whenever a raise is legal. ``max_raises``
    caps the raises of a round: after that many only fold/call are kept (and all-in
    if ``all_in_after_cap``); ``None`` means no cap. It defaults to 3 for a flat
    list (the solver's no-limit menus) and to ``None`` for a round mapping (its depth
    lists already say what deeper raises get). ``allin`` is the action
    abstraction's spelling of ``all_in``; ``name`` labels a preset (not compared).
    In a limit game the menu is :func:`limit_menu`. Menus are hashable and compare
    by content; :meth:`spec` / :func:`menu_from_spec` write and read them as one line.

    >>> from pokerbot.gamedef import load_game
    >>> s = State.initial(load_game("hunl"))
    >>> [str(a) for a in PotFractionMenu((0.5, 1.0))(s)]
    ['f', 'c', 'r200', 'r300', 'r20000']
    >>> menu = PotFractionMenu({0: [[0.5, 1.0]], 1: [[0.5, 1.0], [1.0]]})
    >>> [str(a) for a in menu(s.apply(CALL))]
    ['c', 'r200', 'r300', 'r20000']
    """

    schedule: Schedule
    all_in: bool
    max_raises: int | None
    all_in_after_cap: bool
    name: str = field(compare=False)

    def __init__(
        self,
        fractions: Sequence[float] | Mapping[int, Sequence[Sequence[float]]] = (0.5, 1.0),
        all_in: bool = True,
        max_raises: int | None | _Default = _DEFAULT,
        all_in_after_cap: bool = False,
        *,
        allin: bool | None = None,
        name: str = "custom",
    ) -> None:
        schedule = _schedule(fractions)
        if isinstance(max_raises, _Default):
            max_raises = None if isinstance(fractions, Mapping) else 3
        for rnd, depths in schedule:
            for d in depths:
                for f in d:
                    if not f > 0:
                        raise MenuError(f"bet menu pot fractions must be positive, got {f!r} in round {rnd}")
        if max_raises is not None and max_raises < 0:
            raise MenuError(f"bet menu max_raises must be >= 0 (or None for no cap), got {max_raises}")
        object.__setattr__(self, "schedule", schedule)
        object.__setattr__(self, "all_in", bool(all_in if allin is None else allin))
        object.__setattr__(self, "max_raises", None if max_raises is None else int(max_raises))
        object.__setattr__(self, "all_in_after_cap", bool(all_in_after_cap))
        object.__setattr__(self, "name", name)

    # -- presets ------------------------------------------------------------------------

    @classmethod
    def tiny(cls) -> PotFractionMenu:
        """Pot-sized raises and all-in in every round (then all-in only after two raises)."""
        return cls({0: [[1.0], [1.0], []]}, name="tiny")

    @classmethod
    def default(cls) -> PotFractionMenu:
        """A richer menu: several opening sizes, fewer as raises stack up, always all-in."""
        return cls(
            {
                0: [[0.5, 1.0, 2.0], [0.75, 1.5], [1.0], []],
                1: [[0.33, 0.67, 1.0, 2.0], [0.75, 1.5], [1.0], []],
                2: [[0.5, 1.0, 2.0], [1.0], []],
                3: [[0.5, 1.0, 2.0], [1.0], []],
            },
            name="default",
        )

    @classmethod
    def large(cls) -> PotFractionMenu:
        """The sizes people play, with at most four raises a round.

        Preflop opens of 2, 2.5 and 3 big blinds (pot fractions 0.5, 0.75, 1: heads-up, the pot after
        calling is twice the bet faced, so a raise to ``N`` times the bet is the fraction ``(N - 1) / 2``),
        3-bets to 3x and 4x, 4-bets to 2.2x and 2.5x, then all-in. Flop bets of 0.33, 0.66, 1 and 2 pots;
        turn and river bets of 0.5, 1 and 2 pots; one pot-sized raise, then all-in. All-in is always there
        (after four raises in a round, as the cap, it is the only raise).

        >>> from pokerbot.gamedef import load_game
        >>> s = State.initial(load_game("hunl"))
        >>> [str(a) for a in PotFractionMenu.large()(s)]
        ['f', 'c', 'r200', 'r250', 'r300', 'r20000']
        >>> [str(a) for a in PotFractionMenu.large()(s.apply(raise_to(250)))]   # 3-bets: 3x, 4x
        ['f', 'c', 'r750', 'r1000', 'r20000']
        """
        return cls(
            {
                0: [[0.5, 0.75, 1.0], [1.0, 1.5], [0.6, 0.75], []],
                1: [[0.33, 0.66, 1.0, 2.0], [1.0], []],
                2: [[0.5, 1.0, 2.0], [1.0], []],
            },
            max_raises=4,
            all_in_after_cap=True,
            name="large",
        )

    @classmethod
    def pot_allin(cls) -> PotFractionMenu:
        """One pot-size raise per street (two preflop) plus all-in: the slumbot2019 reference tree.

        >>> from pokerbot.gamedef import load_game
        >>> [str(a) for a in PotFractionMenu.pot_allin()(State.initial(load_game("hunl")))]
        ['f', 'c', 'r300', 'r20000']
        """
        return cls({0: [[1.0], [1.0], []], 1: [[1.0], []]}, name="pot_allin")

    # -- the menu ---------------------------------------------------------------------------

    @property
    def allin(self) -> bool:
        """:attr:`all_in` (the action abstraction's name for it)."""
        return self.all_in

    @property
    def fractions(self) -> dict[int, tuple[tuple[float, ...], ...]]:
        """The schedule as a mapping ``{round: (fractions at depth 0, depth 1, ...)}``."""
        return dict(self.schedule)

    def fractions_at(self, round_: int, depth: int) -> tuple[float, ...]:
        """Pot fractions offered in round ``round_`` after ``depth`` raises this round (before the cap)."""
        depths: tuple[tuple[float, ...], ...] = ()
        for rnd, ds in self.schedule:
            if rnd <= round_:
                depths = ds
        if not depths:
            return ()
        return depths[min(depth, len(depths) - 1)]

    def raise_sizes(self, state: State) -> list[int]:
        """Sorted distinct raise-to totals of the menu at ``state`` (empty when no raise is legal)."""
        bounds = state.raise_bounds()
        if bounds is None or not state.game.nolimit:
            return []
        lo, hi = bounds
        depth = state.num_raises()
        if self.max_raises is not None and depth >= self.max_raises:
            return [hi] if self.all_in and self.all_in_after_cap else []
        sizes = {min(max(raise_size_for_fraction(state, f), lo), hi) for f in self.fractions_at(state.round, depth)}
        if self.all_in:
            sizes.add(hi)
        return sorted(sizes)

    def __call__(self, state: State) -> list[Action]:
        """The abstract actions at ``state``: fold when legal, call, then raises by size."""
        if not state.game.nolimit:
            return limit_menu(state)
        if state.finished:
            return []
        acts = [FOLD] if state.can_fold() else []
        acts.append(CALL)
        acts.extend(raise_to(s) for s in self.raise_sizes(state))
        return acts

    def contains(self, state: State, action: Action) -> bool:
        """Whether ``action`` is one of the menu's actions at ``state``."""
        return action in self(state)

    # -- one-line descriptions ----------------------------------------------------------------

    def spec(self) -> str:
        """A one-line description that :func:`menu_from_spec` reads back.

        A flat list keeps the solver's original form, ``pot 0.5,1 all_in=1 max_raises=3
        all_in_after_cap=0``; a round schedule writes ``r<round>=<depth 0>/<depth 1>/...``
        per round (fractions comma-separated, ``-`` for none).
        """
        def group(fs: tuple[float, ...]) -> str:
            return ",".join(f"{f:g}" for f in fs) or "-"

        cap = "none" if self.max_raises is None else str(self.max_raises)
        opts = f"all_in={int(self.all_in)} max_raises={cap} all_in_after_cap={int(self.all_in_after_cap)}"
        if len(self.schedule) == 1 and len(self.schedule[0][1]) == 1 and self.max_raises is not None:
            return f"pot {group(self.schedule[0][1][0])} {opts}"
        rounds = " ".join(f"r{rnd}=" + "/".join(group(d) for d in ds) for rnd, ds in self.schedule)
        return f"pot {rounds} {opts}"

    def __repr__(self) -> str:
        return f"PotFractionMenu({self.name!r}, {self.spec()!r})"


def menu_from_spec(spec: str) -> BetMenuFn:
    """The menu of a :meth:`PotFractionMenu.spec` line, or :func:`limit_menu` for ``"limit"``.

    >>> menu_from_spec(PotFractionMenu((0.5, 1)).spec()) == PotFractionMenu((0.5, 1))
    True
    >>> menu_from_spec(PotFractionMenu.tiny().spec()) == PotFractionMenu.tiny()
    True
    """
    parts = spec.split()
    if parts == ["limit"]:
        return limit_menu

    def group(text: str) -> tuple[float, ...]:
        return () if text == "-" else tuple(float(x) for x in text.split(","))

    try:
        if parts[0] != "pot":
            raise ValueError
        body = [p for p in parts[1:] if p.split("=", 1)[0] not in ("all_in", "max_raises", "all_in_after_cap")]
        opts = dict(p.split("=", 1) for p in parts[1:] if p not in body)
        fractions: Sequence[float] | dict[int, list[tuple[float, ...]]]
        if len(body) == 1 and "=" not in body[0]:
            fractions = group(body[0])
        elif body and all(p.startswith("r") and "=" in p for p in body):
            fractions = {int(p[1:].split("=", 1)[0]): [group(d) for d in p.split("=", 1)[1].split("/")] for p in body}
        else:
            raise ValueError
        cap = opts.get("max_raises", "3")
        return PotFractionMenu(
            fractions,
            bool(int(opts.get("all_in", "1"))),
            None if cap == "none" else int(cap),
            bool(int(opts.get("all_in_after_cap", "0"))),
        )
    except (ValueError, IndexError):
        raise MenuError(
            f"bad bet menu description {spec!r}; expected 'limit', 'pot F1,F2 all_in=1 max_raises=3' "
            "or 'pot r0=F1,F2/F3 r1=F4 all_in=1 max_raises=none'"
        ) from None


def menu_spec(menu: BetMenuFn) -> str | None:
    """The spec line of a built-in menu (None for other callables)."""
    if menu is limit_menu:
        return "limit"
    if isinstance(menu, PotFractionMenu):
        return menu.spec()
    return None

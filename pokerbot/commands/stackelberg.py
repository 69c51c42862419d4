"""``pokerbot stackelberg``: reproduce the tables of Ling & Brown's safe Stackelberg search."""

from __future__ import annotations

import argparse

from pokerbot.errors import PokerbotError

#: Listed under this heading in ``pokerbot --help``.
GROUP = "research systems and paper reproductions"
HELP = "safe search for Stackelberg equilibria: the paper's toy games and Tables 1-4, measured here"

TABLES = ("figures", "table1", "table2", "table3", "table4")

#: The printed numbers (Ling & Brown, Safe search for Stackelberg equilibria, Tables 1-4
#: of section 5), shown beside the measured ones.
PAPER_TABLE3: dict[int, tuple[float, float, float | None]] = {
    3: (-0.1738, -0.1686, -0.1335), 4: (-0.1905, -0.1862, -0.1882), 5: (-0.2028, -0.2003, -0.2028),
    6: (-0.1832, -0.1780, -0.1832), 8: (-0.1670, -0.1609, None)}
PAPER_TABLE2 = {(4, 2): 3.02, (4, 3): 3.07}
PAPER_TABLE1 = {(2, 2, 2, 0.0): (1.2945, 1.4472, 1.4778), (2, 2, 2, 0.1): (1.2945, 1.4477, 1.4779),
                (2, 2, 2, 0.9): (1.2951, 1.4519, 1.4790), (2, 10, 10, 0.0): (1.1684, 1.6179, 1.6186),
                (2, 10, 10, 0.1): (1.1689, 1.6180, 1.6186), (2, 10, 10, 0.9): (1.1723, 1.6183, 1.6190),
                (2, 100, 100, 0.0): (1.1730, 1.6696, 1.3125), (2, 100, 100, 0.1): (1.1729, 1.6696, 1.2652),
                (2, 100, 100, 0.9): (1.1722, 1.6696, 1.4055), (5, 100, 100, 0.0): (1.3756, 1.8722, 1.4074),
                (5, 100, 100, 0.1): (1.3756, 1.8723, 1.4073), (5, 100, 100, 0.9): (1.3752, 1.8723, 1.4534)}
#: Table 4, keyed by game then parameter value. Leduc: n = 4; Goofspiel: n = 5, m = 4.
PAPER_TABLE4_BETA = {"leduc": {1.0: -0.186, 2.0: -0.182, 4.0: -0.178, 8.0: -0.212, 16.0: -0.212},
                     "goofspiel": {1.0: 5.29, 2.0: 5.35, 4.0: 5.55, 8.0: 5.56, 16.0: 5.50}}
PAPER_TABLE4_ALPHA = {"leduc": {0.1: -0.184, 0.25: -0.185, 0.5: -0.186, 0.75: -0.188, 0.9: -0.189},
                      "goofspiel": {0.1: 5.32, 0.25: 5.34, 0.5: 5.29, 0.75: 5.31, 0.9: 5.30}}
TABLE4_GAMES = ("leduc", "goofspiel")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tables", nargs="*", default=["figures"],
                        help=f"which to reproduce, any of {', '.join(TABLES)} (default: figures)")
    parser.add_argument("--ranks", default="3", help="table3: Leduc rank counts, comma-separated (default 3)")
    parser.add_argument("--rule", default="generator",
                        help="table3/4: Leduc rules, comma-separated: 'generator' (the authors' generator as it "
                             "is, its round-2 fold attribution included), 'code' (its rake on a correct game), "
                             "'paper' (the paper's rake text) (default generator)")
    parser.add_argument("--subgame-time", type=float, default=None,
                        help="seconds per subgame MILP (default: the paper's: 5 Goofspiel, 100 two-stage, 200 Leduc)")
    parser.add_argument("--full-time", type=float, default=0.0,
                        help="seconds for the whole-game MILP warm-started from the blueprint; table3: "
                             "default 0 skips that column; table1: default 0 means the paper's 1000 s")
    parser.add_argument("--full-start", default="blueprint",
                        help="table3: warm start of the whole-game MILP: the blueprint (the paper's) or the "
                             "search's combined strategy (default blueprint)")
    parser.add_argument("--polish", type=int, default=0,
                        help="table3: fixed-response LP rounds improving the warm start before the whole-game "
                             "MILP (default 0)")
    parser.add_argument("--seeds", type=int, default=10, help="table1: games per setting (default 10, as the paper)")
    parser.add_argument("--table1-sizes", default="2x2,10x10",
                        help="table1: settings NxMxm (main game n x n, M secondary games of m x m) or MxM "
                             "(n = 2), comma-separated (default 2x2,10x10: the first rows; the paper's others: "
                             "2x100x100, 5x100x100)")
    parser.add_argument("--kappas", default="0,0.1,0.9", help="table1: κ values, comma-separated (default 0,0.1,0.9)")
    parser.add_argument("--depths", default="2,3", help="table2: subgame depths m for Goofspiel n = 4 (default 2,3)")
    parser.add_argument("--betas", default="1,2,4,8,16",
                        help="table4: β values (α = 0.5), comma-separated; empty skips the row (default 1,2,4,8,16)")
    parser.add_argument("--alphas", default="",
                        help="table4: α values (β = 1), comma-separated; empty (the default) skips the row; "
                             "the paper's: 0.1,0.25,0.5,0.75,0.9")
    parser.add_argument("--table4-games", default="leduc",
                        help="table4: games, comma-separated: leduc, goofspiel (default leduc)")
    parser.add_argument("--table4-ranks", type=int, default=4, help="table4: Leduc ranks (default 4, the paper's)")
    parser.add_argument("--table4-cards", type=int, default=4,
                        help="table4: Goofspiel cards n (default 4; the paper's Table 4 uses 5, which does not fit "
                             "a 24 GB machine: docs/stackelberg.md)")
    parser.add_argument("--table4-depth", type=int, default=3,
                        help="table4: Goofspiel subgame depth m (default 3: one round before the subgames, as the "
                             "paper's m = 4 at n = 5)")


def _floats(text: str, what: str) -> list[float]:
    try:
        return [float(t) for t in text.split(",") if t.strip()]
    except ValueError as e:
        raise PokerbotError(f"{what} must be comma-separated numbers, got {text!r}") from e


def _validate(args: argparse.Namespace) -> None:
    from pokerbot.efg.general_sum_games import RAKE_RULES

    bad = [t for t in args.tables if t not in TABLES]
    if bad:
        raise PokerbotError(f"unknown table {bad[0]!r}: choose from {', '.join(TABLES)}")
    ranks = _floats(args.ranks, "--ranks")
    if any(r < 2 or r != int(r) for r in ranks):
        raise PokerbotError(f"--ranks must be integers >= 2, got {args.ranks!r}")
    rules = [r.strip() for r in args.rule.split(",") if r.strip()]
    if not rules or any(r not in RAKE_RULES for r in rules):
        raise PokerbotError(f"--rule must list some of {', '.join(RAKE_RULES)}, got {args.rule!r}")
    from pokerbot.commands._args import number

    number("--subgame-time", args.subgame_time, 0.0, 86_400.0, low_open=True)  # nan and inf refused too
    number("--full-time", args.full_time, 0.0, 86_400.0)
    if args.full_start not in ("blueprint", "search"):
        raise PokerbotError(f"--full-start must be 'blueprint' or 'search', got {args.full_start!r}")
    if args.full_time < 0 or args.seeds < 1 or args.polish < 0:
        raise PokerbotError("--full-time and --polish must be >= 0 and --seeds >= 1")
    table1_sizes(args.table1_sizes)
    if any(not 0.0 <= k <= 1.0 for k in _floats(args.kappas, "--kappas")) or not _floats(args.kappas, "--kappas"):
        raise PokerbotError(f"--kappas must be numbers in [0, 1], got {args.kappas!r}")
    if any(not 0.0 <= a <= 1.0 for a in _floats(args.alphas, "--alphas")):
        raise PokerbotError(f"--alphas must be in [0, 1], got {args.alphas!r}")
    games = [g.strip() for g in args.table4_games.split(",") if g.strip()]
    if not games or any(g not in TABLE4_GAMES for g in games):
        raise PokerbotError(f"--table4-games must list some of {', '.join(TABLE4_GAMES)}, got {args.table4_games!r}")
    if not 2 <= args.table4_ranks <= 12:
        raise PokerbotError(f"--table4-ranks must be in 2..12, got {args.table4_ranks}")
    if not 2 <= args.table4_cards <= 5 or not 1 <= args.table4_depth <= args.table4_cards:
        raise PokerbotError(f"--table4-cards must be in 2..5 and --table4-depth in 1..cards, got "
                            f"{args.table4_cards}, {args.table4_depth}")
    if any(d < 1 or d > 4 or d != int(d) for d in _floats(args.depths, "--depths")):
        raise PokerbotError(f"--depths must be integers in 1..4, got {args.depths!r}")
    if any(b < 0 for b in _floats(args.betas, "--betas")):
        raise PokerbotError(f"--betas must be non-negative, got {args.betas!r}")


def table1_sizes(text: str) -> list[tuple[int, int, int]]:
    """``--table1-sizes``: entries ``NxMxm`` (main game n x n, M secondary games of
    m x m) or ``MxM`` (n = 2, the paper's first rows), as (n, M, m).

    >>> table1_sizes("2x2,5x100x100")
    [(2, 2, 2), (5, 100, 100)]
    """
    out = []
    for size in text.split(","):
        parts = size.lower().split("x")
        if len(parts) not in (2, 3) or not all(p.strip().isdigit() and 0 < int(p) <= 1000 for p in parts):
            raise PokerbotError(f"--table1-sizes entries look like 10x10 or 5x100x100 (each 1..1000), got {size!r}")
        n, games, m = (2, *(int(p) for p in parts)) if len(parts) == 2 else (int(p) for p in parts)
        out.append((n, games, m))
    return out


def _load() -> str:
    import os

    return "load average " + ", ".join(f"{v:.2f}" for v in os.getloadavg())


def _fmt(v: float | None, digits: int = 4) -> str:
    return "   n/a " if v is None else f"{v:+.{digits}f}"


def _table4(args: argparse.Namespace, rules: list[str]) -> None:
    """Table 4: the α row (β = 1) and the β row (α = 0.5) on each game asked for."""
    import time

    from experiments import stackelberg_tables as ex

    cells = [("α", a, a, 1.0) for a in _floats(args.alphas, "--alphas")]
    cells += [("β", b, 0.5, b) for b in _floats(args.betas, "--betas")]
    for game in (g.strip() for g in args.table4_games.split(",") if g.strip()):
        if game == "leduc":
            limit = args.subgame_time or 200.0
            n = args.table4_ranks
            for rule in rules:
                leduc_setup = ex.leduc_setup(n, rule)
                for name, value, alpha, beta in cells:
                    br = ex.leduc_row(n, rule, alpha=alpha, beta=beta, time_limit=limit, setup=leduc_setup)
                    paper = (PAPER_TABLE4_ALPHA if name == "α" else PAPER_TABLE4_BETA)["leduc"].get(value)
                    verdict = "safe" if br.search >= br.blueprint - 1e-9 else "UNSAFE"
                    ptxt = f"{paper:+.3f}" if paper is not None and n == 4 else "n/a"
                    print(f"Leduc n={n} {rule}: {name}={value:g} search {br.search:+.4f} vs blueprint "
                          f"{br.blueprint:+.4f} ({verdict}; paper {ptxt}); {br.search_seconds:.0f} s, "
                          f"{br.limits_hit}/{br.subgames} at the {limit:g} s limit", flush=True)
        else:
            limit = args.subgame_time or (5.0 if args.table4_cards <= 4 else 100.0)
            cards, depth = args.table4_cards, args.table4_depth
            t0 = time.perf_counter()
            setup = ex.goofspiel_setup(cards)
            same = (cards, depth) == (5, 4)
            print(f"Goofspiel n={cards}, m={depth} ({'the paper' if same else 'not the paper'}'s n=5, m=4 instance); "
                  f"blueprint set up in {time.perf_counter() - t0:.1f} s", flush=True)
            for name, value, alpha, beta in cells:
                g = ex.goofspiel_row(cards, depth, limit, setup=setup, alpha=alpha, beta=beta)
                paper = (PAPER_TABLE4_ALPHA if name == "α" else PAPER_TABLE4_BETA)["goofspiel"].get(value)
                verdict = "safe" if g.search >= g.blueprint - 1e-9 else "UNSAFE"
                ptxt = f"{paper:.2f} (n=5, m=4)" if paper is not None else "n/a"
                print(f"Goofspiel n={cards} m={depth}: {name}={value:g} search {g.search:.4f} vs blueprint "
                      f"{g.blueprint:.4f} ({verdict}; paper {ptxt}); {g.seconds:.0f} s, {g.limits_hit}/{g.subgames} "
                      f"at the {limit:g} s limit", flush=True)


def run(args: argparse.Namespace) -> int:
    _validate(args)
    import time

    from experiments import stackelberg_tables as ex

    rules = [r.strip() for r in args.rule.split(",") if r.strip()]
    for table in args.tables:
        t0 = time.perf_counter()
        print(f"== {table} ({_load()})")
        if table == "figures":
            for name, row in ex.figure_rows().items():
                print(f"{name}: " + ", ".join(f"{k} {v:.4f}" for k, v in row.items()))
        elif table == "table1":
            limit = args.subgame_time or 100.0
            full_limit = args.full_time or 1000.0
            print(f"{args.seeds} game(s) per row, {limit:g} s a subgame, whole-game MILP {full_limit:g} s")
            print(f"{'n':>2} {'M':>3} {'m':>3} {'κ':>4} | blueprint  search  full-game | paper (bp, search, full) | "
                  "seconds search / full; subgames at the limit, slowest; whole-game MILPs at the limit, better "
                  "than the blueprint")
            for n, games, m in table1_sizes(args.table1_sizes):
                for kappa in _floats(args.kappas, "--kappas"):
                    r = ex.two_stage_row(n, games, m, kappa, range(args.seeds), time_limit=limit,
                                         full_time_limit=full_limit)
                    paper = PAPER_TABLE1.get((n, games, m, kappa))
                    ptxt = ", ".join(f"{p:.4f}" for p in paper) if paper else "-"
                    print(f"{n:>2} {games:>3} {m:>3} {kappa:>4g} | {r.blueprint:.4f} {r.search:.4f} {r.full:.4f} | "
                          f"{ptxt} | {r.seconds_search:.1f} / {r.seconds_full:.1f}; "
                          f"{r.search_limits_hit}/{r.subgames}, {r.max_subgame_seconds:.1f} s; "
                          f"{r.full_limits_hit}/{r.instances}, {r.full_improved}/{r.instances}", flush=True)
        elif table == "table2":
            limit = args.subgame_time or 5.0
            goof_setup = ex.goofspiel_setup(4)
            print(f"Goofspiel n=4 (|Σ|, |I|) = ({goof_setup[0].treeplex(0).num_seqs}, "
                  f"{goof_setup[0].treeplex(0).num_infosets})"
                  f" per player; blueprint set up in {time.perf_counter() - t0:.1f} s")
            for depth in (int(d) for d in _floats(args.depths, "--depths")):
                g = ex.goofspiel_row(4, depth, limit, setup=goof_setup)
                print(f"m={depth}: {g.subgames} subgames, blueprint {g.blueprint:.4f}, search {g.search:.4f} "
                      f"(paper {PAPER_TABLE2.get((4, depth), float('nan')):.2f}); {g.seconds:.1f} s, "
                      f"max {g.max_subgame_seconds:.1f} s/subgame, {g.limits_hit} hit the {limit:g} s limit")
        elif table == "table3":
            limit = args.subgame_time or 200.0
            full = args.full_time or None
            print(f"{'n':>2} {'rule':>9} {'#Σ':>6} {'#I':>6} | blueprint  search   full | paper bp, search, full | "
                  "seconds (search, max/subgame, limits hit; full)")
            for n in (int(r) for r in _floats(args.ranks, "--ranks")):
                for rule in rules:
                    lr = ex.leduc_row(n, rule, time_limit=limit, full_time_limit=full, full_start=args.full_start,
                                      polish_rounds=args.polish)
                    paper3: tuple[float | None, ...] = PAPER_TABLE3.get(n, (None, None, None))
                    ft = f"{lr.full_seconds:.0f} s {lr.full_status}" if lr.full_seconds is not None else "skipped"
                    print(f"{n:>2} {rule:>9} {lr.seqs:>6} {lr.infosets:>6} | {_fmt(lr.blueprint)} {_fmt(lr.search)} "
                          f"{_fmt(lr.full)} | {', '.join(_fmt(p) for p in paper3)} | {lr.search_seconds:.0f} s, "
                          f"{lr.max_subgame_seconds:.0f} s, {lr.limits_hit}/{lr.subgames}; {ft}")
        else:
            _table4(args, rules)
        print(f"-- {table}: {time.perf_counter() - t0:.1f} s ({_load()})", flush=True)
    return 0

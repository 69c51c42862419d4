"""Run the benchmarks: ``python -m bench [name ...]``.

Every ``bench/bench_*.py`` module's ``main()`` runs in name order; with
arguments, only the modules whose name contains one of them
(``python -m bench evaluator`` runs ``bench_evaluator``).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def bench_modules() -> list[str]:
    """Names of the ``bench_*`` modules of this package, sorted."""
    here = Path(__file__).resolve().parent
    return sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    names = [n for n in bench_modules() if not args or any(a in n for a in args)]
    if not names:
        print(f"no benchmark matches {args}; available: {', '.join(bench_modules())}", file=sys.stderr)
        return 2
    for name in names:
        print(f"== {name}", flush=True)
        importlib.import_module(f"{__package__ or 'bench'}.{name}").main()
    return 0


if __name__ == "__main__":
    sys.exit(main())

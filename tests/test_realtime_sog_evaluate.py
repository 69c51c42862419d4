"""The protocol table over seeds: the seed cache (resume, reuse), network keys, ray workers."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from realtime.sog import evaluate as E
from realtime.sog.evaluate import SeedCache, evaluate_table, network_key, write_table
from realtime.sog.network import CVPN
from realtime.sog.resolve import SearchSettings, composed_exploitability
from realtime.sog.search import PublicGame
from realtime.sog.values import ExactValue


@pytest.fixture(scope="module")
def kuhn() -> PublicGame:
    return PublicGame.load("kuhn")


def _count_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = E._Evaluator.run

    def counted(self, job):  # type: ignore[no-untyped-def]
        calls.append(job.seed)
        return real(self, job)

    monkeypatch.setattr(E._Evaluator, "run", counted)
    return calls


def test_table_figures_are_the_protocol_and_the_cache_resumes(kuhn: PublicGame, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_runs(monkeypatch)
    cache_path = tmp_path / "seeds.csv"
    rows = evaluate_table(kuhn, [(20, 1.0)], 2, None, 30, progress=False, cache=SeedCache(cache_path))
    direct = [composed_exploitability(kuhn, lambda: ExactValue(kuhn, 30), SearchSettings(20, 1.0), s) for s in (0, 1)]
    assert rows[0].figures == pytest.approx(direct, abs=1e-4)
    assert calls == [0, 1]
    # A later evaluation with more seeds (a fresh cache object, as after a restart) computes only the new one.
    more = evaluate_table(kuhn, [(20, 1.0)], 3, None, 30, progress=False, cache=SeedCache(cache_path))
    assert calls == [0, 1, 2]
    assert more[0].figures[:2] == pytest.approx(rows[0].figures, abs=1e-4)
    # Another value function (exact solves of 31 iterations) is another key: nothing reused.
    evaluate_table(kuhn, [(20, 1.0)], 1, None, 31, progress=False, cache=SeedCache(cache_path))
    assert calls == [0, 1, 2, 0]
    text = write_table(more, tmp_path, "kuhn", "exact value function")
    assert "| SoG(20,1) | 3 |" in text and (tmp_path / "eval.png").is_file()


def test_network_key_follows_the_weights_not_the_file(tmp_path: Path) -> None:
    net = CVPN(10, (3, 3), 2, hidden=8, layers=1)
    torch.save({"spec": net.spec(), "model": net.state_dict(), "step": 5}, tmp_path / "a.pt")
    torch.save({"spec": net.spec(), "model": net.state_dict(), "step": 5, "config": {"game": "kuhn"}}, tmp_path / "b.pt")
    with torch.no_grad():
        net.value.bias[0] += 1e-3
    torch.save({"spec": net.spec(), "model": net.state_dict(), "step": 5}, tmp_path / "c.pt")
    assert network_key(tmp_path / "a.pt", 100) == network_key(tmp_path / "b.pt", 100)
    assert network_key(tmp_path / "a.pt", 100) != network_key(tmp_path / "c.pt", 100)  # negative control
    assert network_key(None, 100) != network_key(None, 50)


@pytest.mark.slow
def test_ray_workers_give_the_same_figures(kuhn: PublicGame) -> None:
    local = evaluate_table(kuhn, [(10, 1.0), (30, 1.0)], 3, None, 30, progress=False)
    remote = evaluate_table(kuhn, [(10, 1.0), (30, 1.0)], 3, None, 30, progress=False, workers=2)
    for a, b in zip(local, remote):
        assert a.figures == pytest.approx(b.figures, abs=1e-9)

"""pokerbot.ray_util.start_ray: one way to start ray (on a stand-in ray module: starting a real one takes seconds)."""

from __future__ import annotations

import logging
import sys
import types
from typing import Any

import pytest

from pokerbot.ray_util import start_ray


class FakeRay(types.ModuleType):
    """Records ``init`` calls; initialised after the first."""

    def __init__(self) -> None:
        super().__init__("ray")
        self.calls: list[dict[str, Any]] = []

    def is_initialized(self) -> bool:
        return bool(self.calls)

    def init(self, **kwargs: Any) -> None:
        self.calls.append(kwargs)


@pytest.fixture
def ray(monkeypatch: pytest.MonkeyPatch) -> FakeRay:
    fake = FakeRay()
    monkeypatch.setitem(sys.modules, "ray", fake)
    monkeypatch.setenv("PYTHONPATH", "/somewhere")
    return fake


QUIET = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}


def test_local_by_default_quiet_with_the_workers_path(ray: FakeRay) -> None:
    assert start_ray(num_cpus=3, env_vars={"NUMBA_NUM_THREADS": "1"}) is ray
    assert ray.calls == [{"num_cpus": 3, "ignore_reinit_error": True, **QUIET,
                          "runtime_env": {"env_vars": {"PYTHONPATH": "/somewhere", "NUMBA_NUM_THREADS": "1"}}}]


def test_an_address_joins_that_cluster(ray: FakeRay) -> None:
    start_ray("auto", num_cpus=8)
    assert ray.calls == [{"address": "auto", **QUIET}]  # a cluster's CPUs are its own


def test_starting_twice_keeps_the_first_ray(ray: FakeRay) -> None:
    start_ray(num_cpus=0)
    assert ray.calls[0]["num_cpus"] == 1  # at least one CPU
    assert start_ray("host:6379", num_cpus=4) is ray and len(ray.calls) == 1

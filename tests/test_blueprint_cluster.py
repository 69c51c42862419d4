"""A blueprint run on a two-node ray cluster (``ray start --head`` and ``ray start --address`` as separate
processes on this machine) gives exactly the arrays of the same run on a local ray.

The cluster run's driver is a separate Python (as ``pokerbot train --ray-address`` would be), so this test
session's own ray stays local. Free ports, a private temp dir; the nodes are stopped whatever happens, by
their process groups (never ``ray stop``). About 40 s (two ray start-ups): slow.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from blueprint.config import BlueprintConfig
from blueprint.trainer import Trainer
from pokerbot.ray_util import LoopbackCluster

ROOT = Path(__file__).resolve().parent.parent

#: 3 epochs of 2 x 2,000 iterations, discounting between epochs and inside the last one.
CONFIG = BlueprintConfig(name="cluster", game="leduc", iterations=12_000, workers=2, sync_every=2_000,
                         discount_every=5_000, discount_until=10_000, seed=3)

DRIVER = """
import json, sys
import numpy as np
from blueprint.config import BlueprintConfig
from blueprint.distributed import epoch_stats
from blueprint.trainer import Trainer

t = Trainer(BlueprintConfig(**json.loads(sys.argv[1])), directory=None)
try:
    t.train(progress=False)
    stats = epoch_stats(t)
finally:
    t.close()
np.savez(sys.argv[2], regret=t.regret, ssum=t.ssum, iteration=t.iteration,
         nodes=np.array(sorted({w.node_id for s in stats for w in s.workers})),
         driver=np.array(stats[-1].driver_node_id), between=np.array([s.bytes_between_nodes for s in stats]))
"""


@pytest.fixture
def cluster() -> Iterator[LoopbackCluster]:
    assert LoopbackCluster.ray_cli() is not None, "the ray command (installed with the ray dependency) is missing"
    c = LoopbackCluster(nodes=2, cpus_per_node=1, object_store_bytes=100 * 2**20, env={"PYTHONPATH": str(ROOT)})
    try:
        c.start()
        yield c
    finally:
        c.stop()
        assert c.own_pids() == [], "cluster processes left after stop"


@pytest.mark.slow
def test_a_two_node_cluster_run_equals_the_local_run(cluster: LoopbackCluster, tmp_path: Path) -> None:
    out = tmp_path / "cluster.npz"
    cfg = dataclasses.asdict(CONFIG.replace(ray_address=cluster.address))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    r = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(cfg), str(out)], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-4000:]
    got = np.load(out)
    assert int(got["iteration"]) == CONFIG.iterations
    nodes = list(got["nodes"])
    assert len(nodes) == 2 and str(got["driver"]) in nodes  # one worker on each node
    assert (got["between"] > 0).all()  # every epoch moved the arrays between the nodes

    local = Trainer(CONFIG, directory=None)
    try:
        local.train(progress=False)
    finally:
        local.close()
    assert local.regret.tobytes() == got["regret"].tobytes()
    assert local.ssum.tobytes() == got["ssum"].tobytes()

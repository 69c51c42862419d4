"""Where the project's torch networks run: CUDA when present, else the CPU.

Every network (Student of Games' CVPN, the leaf-value MLP) takes its device from
:func:`default_device`, so the same code trains and plays on a laptop and on a GPU
machine. ``POKERBOT_DEVICE`` overrides the choice (``cpu``, ``cuda`` or ``cuda:N``):
``POKERBOT_DEVICE=cpu`` keeps a GPU machine's networks on its CPU.

>>> default_device().type in ("cpu", "cuda")
True
"""

from __future__ import annotations

import os
from typing import Any

from pokerbot.errors import PokerbotError

#: The environment variable that overrides :func:`default_device`.
DEVICE_VARIABLE = "POKERBOT_DEVICE"


def default_device() -> Any:
    """The ``torch.device`` networks run on: ``$POKERBOT_DEVICE`` if set, else CUDA when present, else the CPU.

    A ``POKERBOT_DEVICE`` that names no device, or names CUDA where torch sees none, is a
    :class:`~pokerbot.errors.PokerbotError` (one line), not a silent fallback.
    """
    import torch

    want = os.environ.get(DEVICE_VARIABLE, "").strip().lower()
    if not want:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if want != "cpu" and want != "cuda" and not (want.startswith("cuda:") and want[5:].isdigit()):
        raise PokerbotError(f"{DEVICE_VARIABLE} must be 'cpu', 'cuda' or 'cuda:N', got {want!r}")
    if want.startswith("cuda"):
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        index = int(want[5:]) if ":" in want else 0
        if index >= count:
            raise PokerbotError(f"{DEVICE_VARIABLE}={want} but torch sees {count} CUDA device"
                                f"{'' if count == 1 else 's'}")
    return torch.device(want)

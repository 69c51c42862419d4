"""Typed errors. Each names what was wrong, so a caller can tell bad input apart."""

from __future__ import annotations


class PokerbotError(Exception):
    """Base class of every error this project raises on bad input."""


class CardError(PokerbotError, ValueError):
    """A malformed card or card string, or a repeated card."""


class GameDefError(PokerbotError, ValueError):
    """A malformed or inconsistent ACPC ``.game`` definition."""


class IllegalActionError(PokerbotError, ValueError):
    """An action that the rules do not allow in the current state."""


class SolverError(PokerbotError, ValueError):
    """Bad input to the solver: an unsupported game, a bad menu, range or strategy."""


class BettingStringError(PokerbotError, ValueError):
    """A garbled ACPC betting string."""


class MatchStateError(PokerbotError, ValueError):
    """A garbled ACPC ``STATE`` / ``MATCHSTATE`` string."""


class ProtocolError(PokerbotError):
    """A violation of the ACPC protocol on a connection."""


class CheckpointError(PokerbotError):
    """A corrupt or mismatched checkpoint or artifact."""


class LockedError(PokerbotError):
    """Another job is writing the same run directory or file (:func:`pokerbot.files.exclusive`)."""

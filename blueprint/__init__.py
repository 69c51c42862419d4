"""Offline solving: MCCFR over the abstract game, strategy storage, leaf strategies."""

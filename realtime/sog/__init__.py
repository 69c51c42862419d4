"""Student of Games: GT-CFR search, the CVPN, continual re-solving and sound self-play (see docs/sog.md)."""

"""The ACPC protocol, version 2.0.0: seeded deals (:mod:`.deal`), line-framed sockets
(:mod:`.net`), logs (:mod:`.log`), the dealer (:mod:`.dealer`) and the client (:mod:`.client`)."""

"""Line-framed TCP connections for the ACPC protocol.

Messages are single lines. The dealer ends its lines with ``\\r\\n``; a
player may end with ``\\n`` or ``\\r\\n`` (the reference example player sends
its ``VERSION`` line with ``\\n`` only). TCP delivers bytes, not lines, so a
:class:`LineConnection` buffers partial reads and hands out whole lines, each
read bounded by a deadline so that a silent peer never hangs the caller.

>>> import socket
>>> a, b = socket.socketpair()
>>> ca, cb = LineConnection(a), LineConnection(b)
>>> ca.send_line("VERSION:2.0.0")
>>> cb.read_line(deadline=None)
'VERSION:2.0.0'
>>> ca.close(); cb.read_line(deadline=None) is None
True
"""

from __future__ import annotations

import socket
import time

from pokerbot.errors import ProtocolError

#: The ACPC server's line buffer (``READBUF_LEN``): longer lines are refused.
MAX_LINE = 4096


class LineTimeout(ProtocolError):
    """No complete line arrived before the deadline."""


class LineConnection:
    """A socket read and written one ACPC line at a time."""

    def __init__(self, sock: socket.socket, peer: str = "peer", send_timeout: float | None = None) -> None:
        self.sock = sock
        self.peer = peer
        #: Seconds a write may wait for a peer that does not read (None: no limit).
        self.send_timeout = send_timeout
        self._buf = bytearray()
        self._eof = False
        self._blocking = False
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError:
            pass  # not a TCP socket (socketpair in tests)

    def send_line(self, text: str) -> None:
        """Send ``text`` followed by ``\\r\\n``; ProtocolError if the peer has gone (or stopped reading)."""
        self._send(text.encode("ascii") + b"\r\n")

    def send_lines(self, lines: list[str]) -> None:
        """Send several lines in one write."""
        self._send("".join(line + "\r\n" for line in lines).encode("ascii"))

    def _send(self, data: bytes) -> None:
        if self.send_timeout is not None:
            self.sock.settimeout(self.send_timeout)
            self._blocking = False
        elif not self._blocking:
            self.sock.settimeout(None)
            self._blocking = True
        try:
            self.sock.sendall(data)
        except TimeoutError:
            raise ProtocolError(f"could not send to {self.peer}: it has not read for {self.send_timeout} s") from None
        except OSError as exc:
            raise ProtocolError(f"could not send to {self.peer}: {exc}") from exc

    def read_line(self, deadline: float | None) -> str | None:
        """The next line without its ending, or None at end of input.

        ``deadline`` is a :func:`time.monotonic` time; :class:`LineTimeout` if no
        whole line has arrived by then (None waits forever).
        """
        while True:
            end = self._buf.find(b"\n")
            if end >= 0:
                raw = bytes(self._buf[:end])
                del self._buf[: end + 1]
                if raw.endswith(b"\r"):
                    raw = raw[:-1]
                return raw.decode("ascii", errors="replace")
            if len(self._buf) >= MAX_LINE:
                raise ProtocolError(f"line from {self.peer} longer than {MAX_LINE} bytes")
            if self._eof:
                if self._buf:
                    # A last line without its ending: hand it out as the reference getLine does.
                    raw = bytes(self._buf).rstrip(b"\r")
                    self._buf.clear()
                    return raw.decode("ascii", errors="replace")
                return None
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise LineTimeout(f"no complete line from {self.peer} in time")
                self.sock.settimeout(left)
                self._blocking = False
            elif not self._blocking:
                self.sock.settimeout(None)  # a system call: only when the mode changes
                self._blocking = True
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                raise LineTimeout(f"no complete line from {self.peer} in time") from None
            except OSError as exc:
                raise ProtocolError(f"connection to {self.peer} failed: {exc}") from exc
            if not chunk:
                self._eof = True
            else:
                self._buf += chunk

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def connect(host: str, port: int, timeout: float = 10.0) -> LineConnection:
    """Connect to a dealer's seat port; ProtocolError naming host and port on failure."""
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as exc:
        raise ProtocolError(f"could not connect to {host}:{port}: {exc}") from exc
    sock.settimeout(None)
    return LineConnection(sock, peer=f"dealer {host}:{port}")

"""Line-framed TCP connections for the ACPC protocol.

Messages are single lines. The dealer ends its lines with ``\\r\\n``; a
player may end with ``\\n`` or ``\\r\\n`` (the reference example player sends
its ``VERSION`` line with ``\\n`` only). TCP delivers bytes, not lines, so a
:class:`LineConnection` buffers partial reads and hands out whole lines, each
read bounded by a deadline so that a silent peer never hangs the caller.

System calls are the expensive part of a line, so a connection makes as few
as it can: a whole buffer per ``recv``, one ``send`` per message, and for
timed reads and writes the socket stays non-blocking and waits with one
``poll`` (rather than re-arming a socket timeout, which costs an ``ioctl``
and a ``poll`` on every call).

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

import select
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
        #: The socket's mode as last set: True blocking, False non-blocking, None not yet set by us.
        self._blocking: bool | None = None
        self._poll_in: select.poll | None = None
        self._poll_out: select.poll | None = None
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

    def _set_blocking(self, blocking: bool) -> None:
        if self._blocking is not blocking:
            self.sock.setblocking(blocking)  # a system call: only when the mode changes
            self._blocking = blocking

    def _wait(self, writing: bool, seconds: float) -> bool:
        """Wait until the socket can be written (or read); False if ``seconds`` pass first."""
        if not hasattr(select, "poll"):  # pragma: no cover - platforms without poll()
            r, w, _ = select.select([] if writing else [self.sock], [self.sock] if writing else [], [], seconds)
            return bool(r or w)
        poller = self._poll_out if writing else self._poll_in
        if poller is None:
            poller = select.poll()
            poller.register(self.sock, select.POLLOUT if writing else select.POLLIN)
            if writing:
                self._poll_out = poller
            else:
                self._poll_in = poller
        # Any event (also an error or hang-up) wakes us: the send or recv that follows reports it.
        return bool(poller.poll(max(seconds, 0.0) * 1000))

    def _send(self, data: bytes) -> None:
        if self.send_timeout is None:
            self._set_blocking(True)
            try:
                self.sock.sendall(data)
            except OSError as exc:
                raise ProtocolError(f"could not send to {self.peer}: {exc}") from exc
            return
        self._set_blocking(False)
        view = memoryview(data)
        deadline: float | None = None
        while view:
            try:
                view = view[self.sock.send(view) :]
            except BlockingIOError:
                pass
            except OSError as exc:
                raise ProtocolError(f"could not send to {self.peer}: {exc}") from exc
            if view:  # the peer's buffer is full: wait for room, at most send_timeout in all
                if deadline is None:
                    deadline = time.monotonic() + self.send_timeout
                if not self._wait(True, deadline - time.monotonic()):
                    raise ProtocolError(
                        f"could not send to {self.peer}: it has not read for {self.send_timeout} s"
                    )

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
                self._set_blocking(False)
                if not self._wait(False, left):
                    raise LineTimeout(f"no complete line from {self.peer} in time")
            else:
                self._set_blocking(True)
            try:
                chunk = self.sock.recv(65536)
            except BlockingIOError:
                continue  # woken without data after all: wait again
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

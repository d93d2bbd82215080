"""protocol.zmtp: the built-in DEALER peer against a real libzmq ROUTER (ipc and tcp)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq

from protocol.zmtp import Dealer, FrameTooLarge, HandshakeError, open_stream


class Router:
    """A libzmq ROUTER bound on ``endpoint``; ``connect`` returns a handshaken Dealer."""

    def __init__(self, endpoint: str, **options: int) -> None:
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.ROUTER)
        self.sock.setsockopt(zmq.LINGER, 0)
        for name, value in options.items():
            self.sock.setsockopt(getattr(zmq, name), value)
        self.sock.bind(endpoint)
        self.endpoint = self.sock.getsockopt(zmq.LAST_ENDPOINT).decode()
        self.identity = b""

    def connect(self, timeout_ms: int = 2000, max_frame: int = 1 << 20) -> Dealer:
        dealer = Dealer(open_stream(self.endpoint, 5.0), timeout_ms, max_frame)
        dealer.send(b"hello")
        assert self.sock.poll(5000), "the ROUTER got nothing"
        self.identity, data = self.sock.recv_multipart()
        assert data == b"hello"
        return dealer

    def send(self, data: bytes) -> None:
        self.sock.send_multipart([self.identity, data])

    def close(self) -> None:
        self.sock.close(linger=0)
        self.ctx.term()


@pytest.fixture(params=["ipc", "tcp"])
def router(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Router]:
    endpoint = f"ipc://{tmp_path}/r.sock" if request.param == "ipc" else "tcp://127.0.0.1:*"
    r = Router(endpoint)
    yield r
    r.close()


def test_frames_both_ways(router: Router) -> None:
    dealer = router.connect(max_frame=200_000)
    try:
        sizes = [0, 1, 255, 256, 466, 70_000, 3, 150_000, 12]
        for n in sizes:  # sent in one burst: frames split across reads, the buffer grows
            router.send(bytes([n % 251]) * n)
        for n in sizes:
            assert dealer.recv() == bytes([n % 251]) * n
        for n in (5, 300, 70_000):
            dealer.send(b"r" * n)
            assert router.sock.recv_multipart() == [router.identity, b"r" * n]
    finally:
        dealer.close()


def test_oversized_frames_are_skipped(router: Router) -> None:
    dealer = router.connect(max_frame=1000)
    try:
        router.send(b"x" * 5000)
        router.send(b"after")
        with pytest.raises(FrameTooLarge) as info:
            dealer.recv()
        assert info.value.size == 5000
        assert dealer.recv() == b"after"
    finally:
        dealer.close()


def test_timeout_and_closed_peer(router: Router) -> None:
    dealer = router.connect(timeout_ms=50)
    try:
        with pytest.raises(TimeoutError):
            dealer.recv()
        router.send(b"last")
        assert dealer.recv() == b"last"
        router.sock.close(linger=0)
        with pytest.raises(ConnectionError):
            dealer.recv()
    finally:
        dealer.close()


def test_heartbeats_are_answered(tmp_path: Path) -> None:
    """A ROUTER that pings and drops silent peers keeps talking to a Dealer that waits in recv()."""
    r = Router(f"ipc://{tmp_path}/hb.sock", HEARTBEAT_IVL=20, HEARTBEAT_TIMEOUT=100, HEARTBEAT_TTL=200)
    dealer = r.connect(timeout_ms=50)
    try:
        for _ in range(8):  # about 0.4 s of waiting: many pings, each answered
            with pytest.raises(TimeoutError):
                dealer.recv()
        r.send(b"still here")
        assert dealer.recv() == b"still here"
        dealer.send(b"me too")
        assert r.sock.poll(2000) and r.sock.recv_multipart()[1] == b"me too"
    finally:
        dealer.close()
        r.close()


def test_a_peer_that_is_not_zeromq_is_refused(tmp_path: Path) -> None:
    path = str(tmp_path / "plain.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(1)

    def answer() -> None:
        conn, _ = server.accept()
        conn.recv(64)
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n" + bytes(64))
        conn.close()

    t = threading.Thread(target=answer)
    t.start()
    try:
        with pytest.raises(HandshakeError):
            Dealer(open_stream(f"ipc://{path}", 5.0), 2000, 1000)
    finally:
        t.join(5)
        server.close()


@pytest.mark.parametrize("endpoint", ["inproc://x", "ws://127.0.0.1:5", "nonsense", "ipc://"])
def test_unsupported_endpoints(endpoint: str) -> None:
    with pytest.raises(ValueError):
        open_stream(endpoint, 1.0)


def test_missing_ipc_endpoint(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        open_stream(f"ipc://{tmp_path}/absent.sock", 1.0)

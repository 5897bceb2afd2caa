"""The HTTP layer against a hostile client (issue 23, items 2 and 3 and the smaller HTTP items),
against a real ``seep serve`` on loopback: half-sent requests end quietly, unfinished requests
are closed, request heads are bounded, connections per address are capped, the open-file limit
is raised, uvicorn's own answers carry the security headers, JSON POSTs need their content type
and refuse duplicate keys, other sites' pages are refused, and a bad database file stops the
start with one line. Every flood is loopback only, bounded in count and time."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import resource
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import httpx
import pytest
import websockets
from fastapi import WebSocket
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from seep.web.app import CSP, create_app, origin_allowed
from seep.web.limits import ConnectionCap
from seep.web.server import HttpLimits
from seepkit.server import Served, free_port, serve

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="loopback 127.0.0.2: Linux")

JSON = {"Content-Type": "application/json"}


def _rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def _server(
    tmp: Path, *args: str, nofile: int | None = None, **env: str
) -> AbstractContextManager[Served]:
    """``seep serve`` at its default log level with ``env`` settings; ``nofile`` starts it
    with that soft open-file limit."""
    db = ["--database-url", f"sqlite:///{tmp / 'seep.db'}", "--bot-delay", "0.05"]
    return serve(tmp, *args, *db, env=env, nofile=nofile)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One server at its default settings for the tests that do not change them."""
    with _server(tmp_path_factory.mktemp("hostile")) as served:
        yield served


def _connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
    return sock


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    """True when the server ends the connection within ``within`` seconds (it may answer
    first: whatever it sends is read and dropped)."""
    sock.settimeout(0.2)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if sock.recv(65536) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:  # reset: closed too
            return True
    return False


def _answer(sock: socket.socket, limit: float = 5.0) -> bytes:
    """Everything the server sends until it closes the connection."""
    sock.settimeout(limit)
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return data


def _head_and_body(answer: bytes) -> tuple[str, dict[str, str], bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines)}
    return status, headers, body


# --- item 2: a client that hangs up mid-body ends quietly -----------------------------------------


async def _half_sent_posts(port: int, count: int, concurrency: int = 20) -> None:
    """``count`` POSTs that announce a 1,000-byte body, send 10 bytes of it and hang up."""
    request = (
        b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 1000\r\n\r\n" + b'{"name": "'
    )
    todo = iter(range(count))

    async def worker() -> None:
        for _ in todo:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(request)
            await writer.drain()
            writer.close()
            await writer.wait_closed()

    await asyncio.gather(*(worker() for _ in range(concurrency)))


def test_half_sent_requests_end_quietly(server: Served) -> None:
    """10,000 POSTs that hang up mid-body (uvicorn used to log two tracebacks each, 7.4 KB):
    no traceback, and the log grows by well under 1 MB (about 8 s here)."""
    before = server.log.stat().st_size
    started = time.monotonic()
    asyncio.run(asyncio.wait_for(_half_sent_posts(server.port, 10_000), 120))
    took = time.monotonic() - started
    assert httpx.get(server.base + "/healthz", timeout=5).status_code == 200
    time.sleep(0.5)  # the last disconnects reach the app
    grown = server.log.stat().st_size - before
    logged = server.log_text()
    assert "Traceback" not in logged and "ClientDisconnect" not in logged, logged[-3000:]
    assert grown < 100_000, (grown, took)  # the bar: 1 MB


def test_internal_errors_are_logged_once_a_minute_per_client(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An exception no handler takes: a 500 in the app's JSON with the security headers, and
    one log line with its traceback, not one per request."""
    app = create_app(f"sqlite:///{tmp_path / 'seep.db'}")

    @app.get("/api/boom")
    async def boom() -> None:
        raise RuntimeError("a bug")

    @app.websocket("/ws-boom")
    async def socket_boom(ws: WebSocket) -> None:
        raise RuntimeError("a socket bug")

    with caplog.at_level(logging.ERROR), TestClient(app) as client:
        for _ in range(5):
            r = client.get("/api/boom")
            assert r.status_code == 500 and r.json()["error"]["code"] == "internal_error"
            assert r.headers["content-security-policy"] == CSP
        for _ in range(3):
            with pytest.raises(WebSocketDisconnect), client.websocket_connect("/ws-boom"):
                pass
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1, [r.getMessage() for r in errors]
    assert errors[0].exc_info is not None and "RuntimeError: a bug" in errors[0].getMessage()


# --- item 3: the HTTP layer bounded ---------------------------------------------------------------


def test_unfinished_requests_are_closed(tmp_path: Path) -> None:
    """Sockets that send nothing, half a head, or a head and half a body are closed after
    SEEP_REQUEST_TIMEOUT (they used to stay open for good); a whole request is answered."""
    with _server(tmp_path, SEEP_REQUEST_TIMEOUT="1") as served:
        socks = [_connect(served.port) for _ in range(30)]
        for s in socks[10:20]:
            s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        for s in socks[20:]:
            s.sendall(
                b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100\r\n\r\n{"
            )
        # A keep-alive client that sends half of its second request is closed as well.
        slow = _connect(served.port)
        slow.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(0.3)
        assert slow.recv(65536).startswith(b"HTTP/1.1 200")
        slow.sendall(b"GET /healthz HTTP/1.1\r\n")
        socks.append(slow)
        started = time.monotonic()
        assert all(_closed_by_server(s, 6) for s in socks)
        assert time.monotonic() - started < 6
        assert httpx.get(served.base + "/healthz", timeout=5).status_code == 200
        for s in socks:
            s.close()
        assert "Traceback" not in served.log_text()


def test_request_heads_are_bounded(server: Served) -> None:
    """Heads of 5 MiB (10 at once) are cut off at SEEP_MAX_HEADER_BYTES with a 431 in the
    app's JSON: the server does not grow by what they send (it used to buffer them whole)."""
    rss = _rss_bytes(server.proc.pid)
    socks = [_connect(server.port) for _ in range(10)]
    filler = b"X-Filler: " + b"a" * (64 * 1024 - 12) + b"\r\n"
    for s in socks:
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    for _ in range(80):  # 5 MiB a socket, sent a piece at a time to all of them
        for s in socks:
            with contextlib.suppress(OSError):  # refused and closed: the rest is never read
                s.sendall(filler)
    answers = [_answer(s) for s in socks]
    grown = _rss_bytes(server.proc.pid) - rss
    assert grown < 20 * 1024 * 1024, grown
    for answer in answers:
        status, headers, body = _head_and_body(answer)
        assert status.startswith("HTTP/1.1 431"), answer[:200]
        assert json.loads(body)["error"]["code"] == "too_large"
        assert headers["content-security-policy"] == CSP
    for s in socks:
        s.close()


def test_uvicorns_own_400_is_json_with_the_security_headers(server: Served) -> None:
    """A request h11 cannot parse: uvicorn answered in plain text without the page's security
    headers; now in the app's format with them, and logged once a minute, not per request."""
    before = server.log.stat().st_size
    for _ in range(20):
        s = _connect(server.port)
        s.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        status, headers, body = _head_and_body(_answer(s))
        s.close()
        assert status.startswith("HTTP/1.1 400"), status
        assert json.loads(body)["error"]["code"] == "bad_request"
        for name in ("content-security-policy", "x-content-type-options", "x-frame-options"):
            assert name in headers, headers
    lines = server.log_text()[before:].splitlines()
    assert len(lines) <= 1, lines


def test_connections_per_address_are_capped(tmp_path: Path) -> None:
    """With SEEP_MAX_CONNECTIONS_PER_CLIENT=10, an address holding 10 sockets (WebSockets
    count) has its 11th closed at once with a 503, while another address still gets in; once
    it closes some, it gets in again."""
    with _server(
        tmp_path, SEEP_MAX_CONNECTIONS_PER_CLIENT="10", SEEP_REQUEST_TIMEOUT="30"
    ) as served:
        made = httpx.post(served.base + "/api/tables", json={"name": "Asha"}).json()
        time.sleep(0.3)  # that client's connection is closed on the server's side too

        async def hold() -> None:
            url = f"ws://127.0.0.1:{served.port}/ws/{made['code']}"
            sockets = [await websockets.connect(url) for _ in range(4)]
            idle = [_connect(served.port) for _ in range(6)]
            time.sleep(0.3)
            refused = _connect(served.port)
            status, _, body = _head_and_body(_answer(refused))
            assert status.startswith("HTTP/1.1 503"), status
            assert json.loads(body)["error"]["code"] == "too_many_connections"
            other = _connect(served.port, "127.0.0.2")
            other.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert _answer(other).startswith(b"HTTP/1.1 200")
            for ws in sockets[:2]:
                await ws.close()
            time.sleep(0.3)
            again = _connect(served.port)
            again.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert _answer(again).startswith(b"HTTP/1.1 200")
            for s in [refused, other, again, *idle]:
                s.close()
            for ws in sockets[2:]:
                await ws.close()

        asyncio.run(asyncio.wait_for(hold(), 60))
        assert "Traceback" not in served.log_text()


def test_a_trusted_proxy_is_not_capped(tmp_path: Path) -> None:
    """Behind the proxy every client comes from its address: the cap is the proxy's then."""
    with _server(
        tmp_path, "--behind-proxy", SEEP_MAX_CONNECTIONS_PER_CLIENT="3", SEEP_REQUEST_TIMEOUT="30"
    ) as served:
        idle = [_connect(served.port) for _ in range(6)]
        s = _connect(served.port)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert _answer(s).startswith(b"HTTP/1.1 200")
        for sock in [s, *idle]:
            sock.close()


def test_the_open_file_limit_is_raised(tmp_path: Path) -> None:
    """Started with a soft limit of 256 open files, the server raises it to its hard limit."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard <= 256:
        pytest.skip("the hard open-file limit is already 256 or less")
    with _server(tmp_path, nofile=256) as served:
        limits = Path(f"/proc/{served.proc.pid}/limits").read_text()
        row = next(ln for ln in limits.splitlines() if ln.startswith("Max open files"))
        soft = row.split()[3]
        assert soft == (str(hard) if hard != resource.RLIM_INFINITY else "unlimited"), row


def test_connection_cap_counts_open_connections_only() -> None:
    class Conn:
        def __init__(self) -> None:
            self.closing = False

        def is_closing(self) -> bool:
            return self.closing

    cap = ConnectionCap(2)
    a, b, c = Conn(), Conn(), Conn()
    assert cap.admit("x", a) and cap.admit("x", b) and not cap.admit("x", c)
    assert cap.admit("y", c)
    a.closing = True
    assert cap.count("x") == 1 and cap.admit("x", Conn())
    assert ConnectionCap(0).admit("x", a)


# --- the smaller items ----------------------------------------------------------------------------


def test_json_posts_need_their_content_type(tmp_path: Path) -> None:
    """A text/plain or form POST (which another site's page can send without asking) creates
    no table and joins none: 415 bad_content_type."""
    with TestClient(create_app(f"sqlite:///{tmp_path / 'seep.db'}")) as client:
        plain = client.post(
            "/api/tables", content=b'{"name": "Eve"}', headers={"Content-Type": "text/plain"}
        )
        assert plain.status_code == 415 and plain.json()["error"]["code"] == "bad_content_type"
        made = client.post("/api/tables", json={"name": "Asha"}).json()
        form = client.post(f"/api/tables/{made['code']}/join", data={"name": "Eve"})
        assert form.status_code == 415 and form.json()["error"]["code"] == "bad_content_type"
        bare = client.post("/api/quick", content=b"{}")
        assert bare.status_code == 415
        seats = client.get(f"/api/tables/{made['code']}").json()["seats"]
        assert not any(s.get("name") == "Eve" for s in seats)
        assert client.post(f"/api/tables/{made['code']}/join", json={}).status_code == 200


def test_duplicate_json_keys_are_refused(tmp_path: Path) -> None:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'seep.db'}")) as client:
        r = client.post("/api/tables", content=b'{"name": "Asha", "name": "Ravi"}', headers=JSON)
        err = r.json()["error"]
        assert r.status_code == 400 and err["code"] == "bad_json" and "'name'" in err["message"]
        nested = client.post(
            "/api/tables", content=b'{"name": "A", "x": {"k": 1, "k": 2}}', headers=JSON
        )
        assert nested.status_code == 400 and "'k'" in nested.json()["error"]["message"]


def test_other_sites_are_refused(tmp_path: Path) -> None:
    """A POST whose Origin is another site: 403 bad_origin, nothing created; the page's own
    origin, and clients that send no Origin, are served."""
    with TestClient(create_app(f"sqlite:///{tmp_path / 'seep.db'}")) as client:
        evil = client.post(
            "/api/tables", json={"name": "Eve"}, headers={"Origin": "https://evil.example"}
        )
        assert evil.status_code == 403 and evil.json()["error"]["code"] == "bad_origin"
        assert evil.headers["content-security-policy"] == CSP
        nulled = client.post("/api/tables", json={}, headers={"Origin": "null"})
        assert nulled.status_code == 403
        own = client.post("/api/tables", json={}, headers={"Origin": "http://testserver"})
        assert own.status_code == 201
        assert client.post("/api/tables", json={}).status_code == 201
        assert client.get("/", headers={"Origin": "https://evil.example"}).status_code == 200


def test_sockets_from_other_sites_are_refused(server: Served) -> None:
    """The WebSocket handshake checks Origin too: another site's page gets a 403."""
    made = httpx.post(server.base + "/api/tables", json={"name": "Asha"}).json()
    url = f"ws://127.0.0.1:{server.port}/ws/{made['code']}"

    async def run() -> None:
        with pytest.raises(websockets.InvalidStatus) as refused:
            await websockets.connect(url, origin=websockets.Origin("https://evil.example"))
        assert refused.value.response.status_code == 403
        assert b"bad_origin" in refused.value.response.body
        own = websockets.Origin(f"http://127.0.0.1:{server.port}")
        async with websockets.connect(url, origin=own) as ws:
            assert json.loads(await ws.recv())["type"] == "state"

    asyncio.run(asyncio.wait_for(run(), 30))


def test_origin_matching() -> None:
    assert origin_allowed("http://127.0.0.1:8000", "127.0.0.1:8000")
    assert origin_allowed("https://seep.example", "seep.example")  # TLS at the proxy
    assert origin_allowed("https://seep.example", "seep.example:443")
    assert origin_allowed("HTTP://[::1]:8000", "[::1]:8000")
    assert not origin_allowed("http://127.0.0.1:8001", "127.0.0.1:8000")
    assert not origin_allowed("https://seep.example.evil", "seep.example")
    assert not origin_allowed("null", "seep.example")
    assert not origin_allowed("https://seep.example/x", "seep.example")
    assert not origin_allowed("https://a.example", "")
    assert origin_allowed(
        "https://play.example", "10.0.0.5:8000", frozenset({"https://play.example"})
    )


def _start_fails(db: Path) -> tuple[int, str]:
    port = free_port()
    cmd = [sys.executable, "-m", "seep", "serve", "--port", str(port)]
    cmd += ["--database-url", f"sqlite:///{db}"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("the server started on a bad database file")
    return done.returncode, done.stdout + done.stderr


def _damaged_copy(tmp: Path) -> Path:
    db = tmp / "damaged.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT)")
    con.executemany("INSERT INTO t VALUES (?, ?)", ((i, "x" * 200) for i in range(2000)))
    con.commit()
    con.close()
    data = bytearray(db.read_bytes())
    page = 4096
    for start in range(2 * page, len(data), page):
        data[start + 8 : start + 200] = bytes(range(192))  # cell pointers and cells wrecked
    db.write_bytes(bytes(data))
    return db


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("empty", "is an empty file"),
        ("text", "is not an SQLite database file"),
        ("damaged", "is damaged"),
    ],
)
def test_a_bad_database_file_stops_the_start_with_one_line(
    tmp_path: Path, kind: str, words: str
) -> None:
    """An empty file used to start a silent empty server and a damaged one a traceback: now
    one line that names the file, and exit status 1. A new file still starts (the fixtures)."""
    if kind == "damaged":
        db = _damaged_copy(tmp_path)
    else:
        db = tmp_path / f"{kind}.db"
        db.write_text("" if kind == "empty" else "name,score\nAsha,12\n")
    status, output = _start_fails(db)
    assert status == 1, output
    assert "Traceback" not in output
    line = next(ln for ln in output.splitlines() if str(db) in ln)
    assert words in line, output


def test_the_http_settings_are_read_and_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEEP_REQUEST_TIMEOUT", "2.5")
    monkeypatch.setenv("SEEP_MAX_HEADER_BYTES", "4096")
    monkeypatch.setenv("SEEP_MAX_CONNECTIONS_PER_CLIENT", "0")
    assert HttpLimits.from_env() == HttpLimits(2.5, 4096, 0)
    for name, bad in [
        ("SEEP_REQUEST_TIMEOUT", "soon"),
        ("SEEP_MAX_HEADER_BYTES", "100"),
        ("SEEP_MAX_CONNECTIONS_PER_CLIENT", "-1"),
    ]:
        with monkeypatch.context() as m:
            m.setenv(name, bad)
            with pytest.raises(SystemExit, match=name):
                HttpLimits.from_env()

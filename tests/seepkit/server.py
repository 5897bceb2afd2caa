"""A real server in a subprocess, for the tests that need real sockets, limits and logs.

``serve`` starts ``seep serve`` (or, with ``command``, another server of the web app) on a free
port of 127.0.0.1, waits until it answers, and stops it at the end of the ``with`` block; its
output goes to a log file the test may read."""

from __future__ import annotations

import os
import resource
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

SEEP_SERVE = (sys.executable, "-m", "seep", "serve")
# The app straight under uvicorn, as the browser tests run it (no ``seep serve`` settings).
UVICORN = (sys.executable, "-m", "uvicorn", "--factory", "seep.web.app:create_app")


def free_port() -> int:
    """A TCP port that is free on 127.0.0.1 now (the system picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    """A running server: its port, process and log file."""

    def __init__(self, port: int, proc: subprocess.Popen[bytes], log: Path) -> None:
        self.port = port
        self.proc = proc
        self.log = log
        self.base = f"http://127.0.0.1:{port}"

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


@contextmanager
def serve(
    log_dir: Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    port: int | None = None,
    nofile: int | None = None,
    ready: str = "GET /healthz",
    stop: signal.Signals = signal.SIGINT,
    command: Sequence[str] = SEEP_SERVE,
    cwd: Path | None = None,
    log_name: str | None = None,
) -> Iterator[Served]:
    """``command --port PORT *args`` with ``env`` added to this process's environment, its
    output in ``log_dir`` (``log_name``, else ``server-PORT.log``); ready once ``ready`` (a
    method and a path) gets any answer within 30 s. ``nofile`` starts it with that soft
    open-file limit. At the end it gets ``stop`` (SIGINT: a clean stop that flushes its log)
    and is killed if it has not ended 10 s later."""
    import httpx  # here: free_port alone needs no web extra

    port = free_port() if port is None else port
    log = log_dir / (log_name or f"server-{port}.log")
    cmd = [*command, "--port", str(port), *args]
    method, path = ready.split(" ", 1)

    def limit_files() -> None:
        if nofile is not None:
            hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, hard))

    with open(log, "wb") as out:
        proc = subprocess.Popen(
            cmd,
            env=dict(os.environ, **(env or {})),
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=limit_files if nofile is not None else None,
            cwd=cwd,
        )
        served = Served(port, proc, log)
        try:
            deadline = time.time() + 30
            while True:
                try:
                    httpx.request(method, served.base + path, timeout=1)
                    break
                except httpx.TransportError:
                    if proc.poll() is not None or time.time() > deadline:
                        raise AssertionError(f"no server: {log.read_text()}") from None
                    time.sleep(0.1)
            yield served
        finally:
            proc.send_signal(stop)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)

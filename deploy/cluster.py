"""A Seep cluster on this machine: a throwaway PostgreSQL, N ``seep serve`` instances and HAProxy
in front of them (docs/deploy.md), each on a free loopback port.

By hand (``make cluster`` runs three)::

    python deploy/cluster.py --instances 3 --port 8080

From a test or a benchmark::

    cluster = start_cluster(3, tmp_path)
    ...  # talk to cluster.url; cluster.instances[0].kill() stops one without warning
    cluster.stop()

Needs PostgreSQL's server programs (``initdb``, ``pg_ctl``: Debian's ``postgresql``), HAProxy
(``haproxy``) and the ``postgres`` extra (psycopg). Run as root, PostgreSQL runs as the user
``postgres`` (created when missing), since ``initdb`` refuses root.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "HAPROXY_CFG",
    "Cluster",
    "ClusterError",
    "Instance",
    "Postgres",
    "missing_programs",
    "start_cluster",
    "start_postgres",
]

HAPROXY_CFG = Path(__file__).with_name("haproxy.cfg")


class ClusterError(RuntimeError):
    """A part of the cluster is missing or did not start (the message says which)."""


def free_port() -> int:
    """A TCP port free on the loopback address right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _pg_program(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    # Debian keeps the server programs out of PATH, under the major version.
    candidates = sorted(
        glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
        key=lambda p: int(re.findall(r"/(\d+)/bin/", p)[0]),
    )
    return candidates[-1] if candidates else None


def missing_programs() -> list[str]:
    """What this machine lacks to run a cluster (empty when nothing)."""
    missing = [p for p in ("initdb", "pg_ctl") if _pg_program(p) is None]
    if shutil.which("haproxy") is None:
        missing.append("haproxy")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        missing.append("psycopg (pip install 'seep-game[postgres]')")
    return missing


def _wait_http(url: str, timeout: float, proc: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        if proc is not None and proc.poll() is not None:
            raise ClusterError(f"{proc.args!r} exited with {proc.returncode}")
        if time.monotonic() > deadline:
            raise ClusterError(f"{url} did not answer in {timeout:.0f} s")
        time.sleep(0.1)


# --- PostgreSQL ------------------------------------------------------------------------------


@dataclass
class Postgres:
    """A throwaway PostgreSQL server: ``url`` is the SQLAlchemy URL of its database ``seep``."""

    dir: Path
    port: int
    url: str

    def stop(self) -> None:
        """Stop the server at once and delete its files."""
        pg_ctl = _pg_program("pg_ctl")
        if pg_ctl is not None and (self.dir / "data").exists():
            _run_pg([pg_ctl, "-D", str(self.dir / "data"), "-m", "immediate", "stop"], check=False)
        shutil.rmtree(self.dir, ignore_errors=True)


def _run_pg(cmd: list[str], *, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    if os.geteuid() == 0:  # initdb and postgres refuse to run as root
        cmd = ["runuser", "-u", "postgres", "--", *cmd]
    done = subprocess.run(cmd, capture_output=True, check=False)
    if check and done.returncode != 0:
        raise ClusterError(f"{' '.join(cmd)} failed: {done.stderr.decode(errors='replace')}")
    return done


def start_postgres(port: int | None = None) -> Postgres:
    """Create and start a PostgreSQL server with a database ``seep`` (user ``seep``, trusted on
    the loopback address only). Its files live in a fresh temporary folder."""
    initdb, pg_ctl = _pg_program("initdb"), _pg_program("pg_ctl")
    if initdb is None or pg_ctl is None:
        raise ClusterError("PostgreSQL's server programs are missing (apt-get install postgresql)")
    import psycopg

    port = port or free_port()
    # Not under the caller's folder: the 'postgres' user must reach it (pytest's are private).
    pg_dir = Path(tempfile.mkdtemp(prefix="seep-pg-"))
    if os.geteuid() == 0:
        if subprocess.run(["id", "postgres"], capture_output=True).returncode != 0:
            subprocess.run(["useradd", "-m", "postgres"], check=True, capture_output=True)
        shutil.chown(pg_dir, user="postgres")
    pg = Postgres(pg_dir, port, f"postgresql+psycopg://seep@127.0.0.1:{port}/seep")
    try:
        _run_pg([initdb, "-D", str(pg_dir / "data"), "-A", "trust", "-U", "seep", "--no-sync"])
        options = f"-p {port} -k {pg_dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        data, log = str(pg_dir / "data"), str(pg_dir / "log")
        _run_pg([pg_ctl, "-D", data, "-o", options, "-l", log, "-w", "start"])
        with psycopg.connect(
            host="127.0.0.1", port=port, user="seep", dbname="postgres", autocommit=True
        ) as conn:
            conn.execute("CREATE DATABASE seep")
    except BaseException:
        pg.stop()
        raise
    return pg


# --- the cluster -----------------------------------------------------------------------------


@dataclass
class Instance:
    """One ``seep serve`` process: ``id`` is its instance id, ``url`` its own address."""

    id: str
    port: int
    proc: subprocess.Popen[bytes]
    log: Path
    cmd: list[str] = field(default_factory=list)  # how it was started, for a restart
    env: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.proc.pid

    def kill(self) -> None:
        """Stop the process without warning (SIGKILL): only what the database holds survives."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self, wait: float = 5.0) -> None:
        """Stop the process as a service manager would (SIGTERM: it drains, docs/deploy.md
        "Rolling restarts"), killing it if it takes longer than ``wait`` seconds."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(wait)
            except subprocess.TimeoutExpired:
                self.kill()

    def restart(self, wait: float = 20.0) -> None:
        """Stop it (SIGTERM) and start it again under the same id, port and settings, as one
        step of a rolling restart; returns once it is ready (``/readyz``)."""
        self.stop(wait)
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                self.cmd, env=self.env, stdout=out, stderr=subprocess.STDOUT
            )
        _wait_http(f"{self.url}/readyz", 30, self.proc)


@dataclass
class Cluster:
    """PostgreSQL, the instances and HAProxy: ``url`` is HAProxy's address, where clients go."""

    url: str
    database_url: str
    instances: list[Instance]
    haproxy: subprocess.Popen[bytes]
    workdir: Path
    postgres: Postgres | None = None
    _stopped: bool = field(default=False, repr=False)

    def stop(self) -> None:
        """Stop HAProxy, the instances and the throwaway PostgreSQL (if this cluster made it)."""
        if self._stopped:
            return
        self._stopped = True
        if self.haproxy.poll() is None:
            self.haproxy.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.haproxy.wait(5)
            if self.haproxy.poll() is None:
                self.haproxy.kill()
        for inst in self.instances:
            inst.stop()
        if self.postgres is not None:
            self.postgres.stop()

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _set_limit(text: str, name: str, default: int, value: int) -> str:
    """The lines of one per-address limit (marked ``# limit: NAME``) with ``value`` in place
    of the shipped ``default`` figure, or without them for 0 (no limit)."""
    marker = f"  # limit: {name}"
    out = []
    for line in text.splitlines(keepends=True):
        if line.rstrip().endswith(marker):
            if value <= 0:
                continue
            line = re.sub(rf"\b{default}\b", str(value), line)
        out.append(line)
    return "".join(out)


def haproxy_config(
    bind: str,
    servers: list[tuple[str, str]],
    *,
    tables_per_minute: int = 10,
    unknown_codes_per_minute: int = 30,
) -> str:
    """deploy/haproxy.cfg with its ``bind`` line and server lines replaced, and its
    per-address limits set to the instances' figures (0: none)."""
    text = HAPROXY_CFG.read_text()
    text = _set_limit(text, "tables", 10, tables_per_minute)
    text = _set_limit(text, "codes", 30, unknown_codes_per_minute)
    text, n = re.subn(r"(?m)^(\s*)bind \S+$", lambda m: f"{m.group(1)}bind {bind}", text)
    lines = "".join(f"    server {name} {addr}\n" for name, addr in servers)
    text, k = re.subn(
        r"(?ms)^(\s*# servers: begin\n).*?^(\s*# servers: end)$",
        lambda m: m.group(1) + lines + m.group(2),
        text,
    )
    if n != 1 or k != 1:
        raise ClusterError(f"{HAPROXY_CFG} lost its bind line or its server markers")
    return text


def start_cluster(
    n: int,
    workdir: str | Path,
    *,
    port: int | None = None,
    database_url: str | None = None,
    bot_delay: float | None = None,
    lease_seconds: float | None = None,
    env: dict[str, str] | None = None,
) -> Cluster:
    """Start ``n`` instances (ids ``s1``.. ``sN``) on one PostgreSQL behind HAProxy and wait
    until HAProxy answers. ``workdir`` gets the logs and HAProxy's configuration; ``port`` is
    HAProxy's (free by default); ``database_url`` an existing PostgreSQL database to use
    instead of a throwaway one; ``bot_delay``, ``lease_seconds`` and ``env`` go to every
    instance (``env`` on top of this process's environment)."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    haproxy = shutil.which("haproxy")
    if haproxy is None:
        raise ClusterError("HAProxy is missing (apt-get install haproxy)")
    pg = start_postgres() if database_url is None else None
    db = database_url or (pg.url if pg else "")
    instances: list[Instance] = []
    proxy: subprocess.Popen[bytes] | None = None
    try:
        # The instances see every client through HAProxy on loopback: they take the client's
        # address from X-Forwarded-For for their per-address limits (docs/web.md).
        child_env = dict(os.environ, SEEP_TRUSTED_PROXIES="127.0.0.1")
        child_env.update(env or {})
        if lease_seconds is not None:
            child_env["SEEP_LEASE_SECONDS"] = str(lease_seconds)
        # The schema is upgraded once, before any instance starts: an instance refuses a
        # PostgreSQL database whose schema is behind (docs/deploy.md "Upgrading").
        upgrade = subprocess.run(
            [sys.executable, "-m", "seep", "db", "upgrade", "--database-url", db],
            env=child_env,
            capture_output=True,
            text=True,
        )
        if upgrade.returncode != 0:
            raise ClusterError(f"seep db upgrade failed: {upgrade.stderr.strip()}")
        for i in range(n):
            inst_id, inst_port = f"s{i + 1}", free_port()
            cmd = [sys.executable, "-m", "seep", "serve", "--host", "127.0.0.1"]
            cmd += ["--port", str(inst_port), "--database-url", db, "--instance-id", inst_id]
            if bot_delay is not None:
                cmd += ["--bot-delay", str(bot_delay)]
            log = workdir / f"instance-{inst_id}.log"
            with log.open("wb") as out:
                proc = subprocess.Popen(cmd, env=child_env, stdout=out, stderr=subprocess.STDOUT)
            instances.append(Instance(inst_id, inst_port, proc, log, cmd, child_env))
        for inst in instances:
            try:
                _wait_http(f"{inst.url}/readyz", 30, inst.proc)
            except ClusterError as exc:
                raise ClusterError(f"{exc}\n{inst.log.read_text(errors='replace')}") from None
        port = port or free_port()
        cfg = workdir / "haproxy.cfg"
        # The site-wide limits in HAProxy take the instances' figures (docs/deploy.md).
        cfg.write_text(
            haproxy_config(
                f"127.0.0.1:{port}",
                [(inst.id, f"127.0.0.1:{inst.port}") for inst in instances],
                tables_per_minute=int(child_env.get("SEEP_MAX_TABLES_PER_MINUTE", "10")),
                unknown_codes_per_minute=int(
                    child_env.get("SEEP_MAX_UNKNOWN_CODES_PER_MINUTE", "30")
                ),
            )
        )
        log = workdir / "haproxy.log"
        with log.open("wb") as out:
            proxy = subprocess.Popen(
                [haproxy, "-db", "-f", str(cfg)], stdout=out, stderr=subprocess.STDOUT
            )
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_http(f"{url}/healthz", 15, proxy)
        except ClusterError as exc:
            raise ClusterError(f"{exc}\n{log.read_text(errors='replace')}") from None
        return Cluster(url, db, instances, proxy, workdir, pg)
    except BaseException:
        if proxy is not None and proxy.poll() is None:
            proxy.kill()
        for inst in instances:
            inst.kill()
        if pg is not None:
            pg.stop()
        raise


def main(argv: list[str] | None = None) -> int:
    """Run a cluster until Ctrl-C."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--instances", type=int, default=3, help="seep serve processes (3)")
    parser.add_argument("--port", type=int, default=None, help="HAProxy's port (a free one)")
    parser.add_argument("--workdir", default=None, help="logs and haproxy.cfg (a temporary dir)")
    parser.add_argument("--database-url", default=None, help="an existing PostgreSQL database")
    parser.add_argument("--bot-delay", type=float, default=None, help="seconds before bot moves")
    args = parser.parse_args(argv)
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="seep-cluster-"))
    try:
        cluster = start_cluster(
            args.instances,
            workdir,
            port=args.port,
            database_url=args.database_url,
            bot_delay=args.bot_delay,
        )
    except ClusterError as exc:
        print(f"cluster: {exc}", file=sys.stderr)
        return 1
    with cluster:
        print(f"Seep cluster: open {cluster.url}/ in a browser (Ctrl-C stops everything)")
        for inst in cluster.instances:
            print(f"  instance {inst.id}: {inst.url} (pid {inst.pid}, log {inst.log})")
        print(f"  PostgreSQL: {cluster.database_url}")
        print(f"  HAProxy: {workdir / 'haproxy.cfg'}, log {workdir / 'haproxy.log'}")
        stop: list[Any] = []
        signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
        exited: set[str] = set()
        try:
            while not stop:
                time.sleep(0.5)
                for inst in cluster.instances:
                    if inst.proc.poll() is not None and inst.id not in exited:
                        exited.add(inst.id)
                        print(f"  instance {inst.id} exited ({inst.proc.returncode})")
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())

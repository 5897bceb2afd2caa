"""The container: deploy/Containerfile, deploy/compose.yaml (docs/deploy.md, "A container").

The compose file is checked as written (its services, their order, the instances' ids, HAProxy's
configuration). Then the image is built and run with podman: no image registry is reachable
where this runs, so the base is Debian's python3 made by ``mmdebstrap`` (cached for the day in
/var/tmp/seep-container-test) and passed as ``--build-arg BASE``, PostgreSQL and HAProxy run
as processes on the host, and the containers share the host's network. The schema upgrade
and two instances run as compose.yaml describes them (its environment and commands); then,
through HAProxy, the lobby and its static files answer, a table is created and its player
plays moves against bots over the WebSocket, stored in PostgreSQL.

Needs podman, runc, mmdebstrap, HAProxy and PostgreSQL's server programs, and a machine where
podman can run a container: otherwise skipped, except under ``CI=true`` (.ci/run installs
them), where it fails. About 35-50 s with the base cached, 80 s without (a 2-core VM). Run it
alone with ``pytest -m container``.
"""

from __future__ import annotations

import asyncio
import datetime
import importlib.util
import ipaddress
import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("fastapi")
yaml = pytest.importorskip("yaml")
httpx = pytest.importorskip("httpx")
ws_client = pytest.importorskip("websockets.asyncio.client")

import seep  # noqa: E402
from seep.web.offline_assets import pyodide_version  # noqa: E402  (after the skips above)

pytestmark = pytest.mark.container

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
# Stable across runs (keyed by the day inside), so a rerun skips mmdebstrap.
CACHE = Path("/var/tmp/seep-container-test")
BASE_REPO = "localhost/seep-test-base"

# This machine's podman (docs/deploy.md "A container"): crun fails here (cgroups in hybrid
# mode), runc works; podman's default open-files and processes limits exceed this VM's hard
# limits, so a container starts only with lower ones.
CONTAINERS_CONF = """\
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]
[engine]
runtime = "runc"
"""


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


cluster_mod = _load(DEPLOY / "cluster.py", "seep_deploy_cluster_c")
cfg_mod = _load(DEPLOY / "compose" / "write_haproxy_cfg.py", "seep_deploy_compose_cfg")


def _compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    return data


def _instances(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The compose file's ``seep serve`` services, by name (those with an instance id)."""
    return {
        name: svc
        for name, svc in compose["services"].items()
        if "SEEP_INSTANCE_ID" in (svc.get("environment") or {})
    }


def test_the_compose_file_runs_the_upgrade_then_the_instances_behind_haproxy() -> None:
    compose = _compose()
    services = compose["services"]
    assert services["postgres"]["image"] == "postgres:16"
    assert services["haproxy"]["image"] == "haproxy:2.8"
    migrate = services["migrate"]
    assert migrate["command"] == ["db", "upgrade"]
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert migrate["restart"] == "on-failure"  # a one-shot, until it succeeds
    instances = _instances(compose)
    ids = [svc["environment"]["SEEP_INSTANCE_ID"] for svc in instances.values()]
    assert len(ids) >= 2 and len(set(ids)) == len(ids), ids
    # Whatever subnet the compose network gets (podman's 10.89.0.0/24 here, docker's
    # 172.18.0.0/16 ...), HAProxy's address in it is trusted.
    peers = [ipaddress.ip_address(a) for a in ("10.89.0.7", "172.18.0.5", "192.168.16.2")]
    for svc in [migrate, *instances.values()]:
        assert svc["build"]["dockerfile"] == "deploy/Containerfile"
        assert (DEPLOY / svc["build"]["context"] / svc["build"]["dockerfile"]).is_file()
        assert svc["environment"]["SEEP_DATABASE_URL"].endswith("@postgres:5432/seep")
        trusted = svc["environment"]["SEEP_TRUSTED_PROXIES"].split()
        for peer in peers:
            assert any(peer in ipaddress.ip_network(net) for net in trusted), (peer, trusted)
    for svc in instances.values():
        assert svc["depends_on"] == {"migrate": {"condition": "service_completed_successfully"}}
        assert "command" not in svc  # the image's own: seep serve
    assert sorted(services["haproxy"]["depends_on"]) == sorted(instances)
    # HAProxy's configuration is deploy/haproxy.cfg with these instances as its servers.
    assert (
        "./compose/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro"
        in (services["haproxy"]["volumes"])
    )
    assert cfg_mod.COMPOSE_CFG.read_text() == cfg_mod.compose_haproxy_config(), (
        "deploy/compose/haproxy.cfg is stale: python deploy/compose/write_haproxy_cfg.py"
    )
    servers = re.findall(r"(?m)^\s*server (\S+) (\S+):8000$", cfg_mod.COMPOSE_CFG.read_text())
    by_id = {svc["environment"]["SEEP_INSTANCE_ID"]: name for name, svc in instances.items()}
    assert dict(servers) == by_id
    # podman reads .containerignore, docker .dockerignore: the same context either way.
    assert (ROOT / ".containerignore").read_text() == (ROOT / ".dockerignore").read_text()
    # No password is written down: the file reads it from the environment.
    assert "${SEEP_DB_PASSWORD:?" in services["postgres"]["environment"]["POSTGRES_PASSWORD"]


def test_seep_serve_takes_its_port_from_seep_port(monkeypatch: pytest.MonkeyPatch) -> None:
    """The image's health check and the test's instances name the port in SEEP_PORT."""
    from seep.__main__ import _serve_port, main

    monkeypatch.setenv("SEEP_PORT", "8123")
    assert _serve_port(None) == 8123
    assert _serve_port(9000) == 9000  # --port wins
    monkeypatch.delenv("SEEP_PORT")
    assert _serve_port(None) == 8000
    for bad in ("http", "0", "70000", "-1"):
        monkeypatch.setenv("SEEP_PORT", bad)
        with pytest.raises(SystemExit, match=r"SEEP_PORT must be a port number \(1-65535\)"):
            main(["serve"])


# --- podman ----------------------------------------------------------------------------------


def _unavailable(why: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run the container test: {why}")
    pytest.skip(why)


def _run(
    cmd: list[str], env: dict[str, str], timeout: float = 120, check: bool = True
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stderr[-4000:]}")
    return done


@pytest.fixture(scope="module")
def podman(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, str], str]]:
    """podman's environment (this machine's settings) and the day's Debian base image."""
    needed = ["podman", "runc", "mmdebstrap", "haproxy"]
    path = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"  # runc lives in /usr/sbin
    missing = [p for p in needed if shutil.which(p, path=path) is None]
    missing += [p for p in cluster_mod.missing_programs() if p.split()[0] != "haproxy"]
    if missing:
        _unavailable(f"missing {', '.join(missing)} (apt-get install podman runc mmdebstrap)")
    conf = tmp_path_factory.mktemp("podman") / "containers.conf"
    conf.write_text(CONTAINERS_CONF)
    env = dict(os.environ, CONTAINERS_CONF=str(conf))
    day = datetime.date.today().strftime("%Y%m%d")
    base = f"{BASE_REPO}:{day}"
    try:
        if _run(["podman", "image", "exists", base], env, check=False).returncode != 0:
            _import_base(base, day, env)
        probe = _run(["podman", "run", "--rm", "--network", "host", base, "true"], env, 60, False)
    except (OSError, subprocess.TimeoutExpired, AssertionError) as exc:
        _unavailable(f"podman cannot make the base image here: {exc}")
    if probe.returncode != 0:
        _unavailable(f"podman cannot run a container here: {probe.stderr.strip()[-2000:]}")
    yield env, base


def _import_base(base: str, day: str, env: dict[str, str]) -> None:
    """Make the day's base (Debian's python3 and venv, this machine's certificate authorities
    and pip's use of them, for a network whose TLS they sign) once a day; older ones go."""
    CACHE.mkdir(parents=True, exist_ok=True)
    tar = CACHE / f"base-{day}.tar"
    if not tar.exists():
        for old in CACHE.glob("base-*.tar*"):
            old.unlink()
        part = tar.with_suffix(".tar.part")
        hooks = [
            "if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then"
            ' mkdir -p "$1/usr/local/share/ca-certificates"'
            ' && cp /usr/local/share/ca-certificates/*.crt "$1/usr/local/share/ca-certificates/"'
            ' && chroot "$1" update-ca-certificates; fi',
            'printf "[global]\\ncert = /etc/ssl/certs/ca-certificates.crt\\n" > "$1/etc/pip.conf"',
        ]
        cmd = [
            "mmdebstrap",
            "--variant=minbase",
            "--format=tar",
            "--include=python3,python3-venv,ca-certificates",
        ]
        cmd += [f"--customize-hook={hook}" for hook in hooks]
        _run([*cmd, "bookworm", str(part)], env, timeout=600)
        part.rename(tar)
    images = _run(["podman", "images", "--format", "{{.Repository}}:{{.Tag}}"], env).stdout
    for old in images.split():
        if old.startswith(f"{BASE_REPO}:") and old != base:
            _run(["podman", "rmi", old], env, check=False)
    _run(["podman", "import", str(tar), base], env, timeout=300)


def _wait(url: str, timeout: float, what: str, logs: Any = None) -> httpx.Response:
    deadline = time.monotonic() + timeout
    while True:
        try:
            r = httpx.get(url, timeout=3)
            if r.status_code == 200:
                return r
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            shown = logs() if logs is not None else ""
            raise AssertionError(f"{what} did not answer {url} in {timeout:.0f} s\n{shown}")
        time.sleep(0.3)


async def _play(base: str, code: str, token: str, moves: int) -> list[Any]:
    """Seat 0 of a table with three easy bots: start, then play the first legal move ``moves``
    times; the deal's history as last seen."""
    history: list[Any] = []
    played = 0
    asked: set[int] = set()
    async with ws_client.connect(f"{base}/ws/{code}", open_timeout=20) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        started = False
        async for raw in ws:
            msg = json.loads(raw)
            assert msg["type"] != "error" or msg["code"] in ("stale", "not_your_turn"), msg
            if msg["type"] != "state" or msg["seat"] != 0:
                continue
            if msg["table"]["status"] == "waiting":
                if not started:
                    started = True
                    await ws.send(json.dumps({"type": "start"}))
                continue
            history = msg["view"]["history"] if msg["view"] else []
            if played >= moves:
                return history
            if msg["legal"] and msg["version"] not in asked:
                asked.add(msg["version"])
                played += 1
                move = {"type": "move", "move": msg["legal"][0], "version": msg["version"]}
                await ws.send(json.dumps(move))
    raise AssertionError(f"the socket closed after {played} moves")


def test_the_image_serves_two_instances_on_postgresql_behind_haproxy(
    podman: tuple[dict[str, str], str], tmp_path: Path
) -> None:
    env, base = podman
    run_id = uuid.uuid4().hex[:8]
    image = f"localhost/seep-test:{run_id}"
    names: list[str] = []
    pg: Any = None
    proxy: subprocess.Popen[bytes] | None = None
    try:
        started = time.monotonic()
        # --layers=false: no cached stage image is left behind once the image is made.
        build = ["podman", "build", "--network", "host", "--format", "docker", "--layers=false"]
        build += ["--build-arg", f"BASE={base}", "-f", str(DEPLOY / "Containerfile")]
        _run([*build, "-t", image, str(ROOT)], env, timeout=600)
        built = time.monotonic() - started
        size = int(_run(["podman", "image", "inspect", image, "--format", "{{.Size}}"], env).stdout)
        print(f"\ncontainer: built in {built:.0f} s, {size / 1e6:.0f} MB")

        run = ["podman", "run", "--rm", "--network", "host"]
        version = _run([*run, image, "--version"], env).stdout.strip()
        print(f"container: {version}")
        assert version == f"seep {seep.__version__}, pure-Python core", version
        assert _run([*run, "--entrypoint", "id", image, "-u"], env).stdout.strip() == "10001"

        pg = cluster_mod.start_postgres()
        compose = _compose()

        def env_of(svc: dict[str, Any], port: int | None = None) -> list[str]:
            # compose.yaml's settings, with this machine's addresses: PostgreSQL and HAProxy
            # on the host's loopback.
            settings = dict(svc["environment"])
            settings["SEEP_DATABASE_URL"] = pg.url
            settings["SEEP_TRUSTED_PROXIES"] = "127.0.0.1"
            settings["SEEP_BOT_DELAY"] = "0.05"
            if port is not None:
                settings["SEEP_PORT"] = str(port)
            return [arg for k, v in settings.items() for arg in ("-e", f"{k}={v}")]

        migrate = compose["services"]["migrate"]
        upgraded = _run([*run, *env_of(migrate), image, *migrate["command"]], env, 120)
        assert "upgraded from none to" in upgraded.stdout, upgraded

        instances = list(_instances(compose).items())[:2]
        ports: list[int] = []
        for name, svc in instances:
            port = cluster_mod.free_port()
            cname = f"seep-test-{run_id}-{name}"
            # The instance's own command (the image's: seep serve --host 0.0.0.0), on the port
            # its SEEP_PORT names, as the health check reads it.
            detached = ["podman", "run", "-d", "--name", cname, "--network", "host"]
            _run([*detached, *env_of(svc, port), image], env)
            names.append(cname)
            ports.append(port)
        for cname, port in zip(names, ports, strict=True):

            def logs(cname: str = cname) -> str:
                return _run(["podman", "logs", cname], env, check=False).stderr[-4000:]

            ready = _wait(f"http://127.0.0.1:{port}/readyz", 90, cname, logs)
            assert ready.json() == {"status": "ok"}
            # The image's HEALTHCHECK, run by podman: healthy.
            health = _run(["podman", "healthcheck", "run", cname], env, check=False)
            assert health.returncode == 0, health.stdout + health.stderr

        front = cluster_mod.free_port()
        cfg = tmp_path / "haproxy.cfg"
        servers = [
            (svc["environment"]["SEEP_INSTANCE_ID"], f"127.0.0.1:{port}")
            for (_, svc), port in zip(instances, ports, strict=True)
        ]
        cfg.write_text(cluster_mod.haproxy_config(f"127.0.0.1:{front}", servers))
        with (tmp_path / "haproxy.log").open("wb") as out:
            proxy = subprocess.Popen(
                ["haproxy", "-db", "-f", str(cfg)], stdout=out, stderr=subprocess.STDOUT
            )
        url = f"http://127.0.0.1:{front}"
        lobby = _wait(f"{url}/", 30, "HAProxy", lambda: (tmp_path / "haproxy.log").read_text())
        assert "/static/seep.css" in lobby.text and "/static/js/app.js" in lobby.text
        with httpx.Client(base_url=url, timeout=20) as http:
            for path in ("/static/seep.css", "/static/js/app.js", "/favicon.ico", "/sw.js"):
                assert http.get(path).status_code == 200, path
            # Offline play: the image carries the Pyodide of the checkout it was built from
            # (make pyodide, which make test runs first).
            version = pyodide_version()
            offline = http.get("/offline/assets.json").json()
            if version is not None:
                assert offline["pyodide"] == f"/pyodide/{version}/", offline
                wasm = http.get(f"/pyodide/{version}/pyodide.asm.wasm")
                assert wasm.status_code == 200 and wasm.content[:4] == b"\0asm"
            # Both instances serve (the lobby goes round robin).
            served = {http.get("/api/lobby").status_code for _ in range(4)}
            assert served == {200}, served
            made = http.post("/api/tables", json={"name": "Box", "bots": "easy", "deals": 1})
            assert made.status_code == 201, made.text
            code, token = made.json()["code"], made.json()["token"]
        history = asyncio.run(_play(url.replace("http://", "ws://"), code, token, 3))
        assert len(history) >= 3, history
        # The moves are in the host's PostgreSQL, written by the container that holds the table.
        import sqlalchemy

        db = sqlalchemy.create_engine(pg.url)
        try:
            with db.connect() as conn:
                stored = conn.execute(
                    sqlalchemy.text("SELECT count(*) FROM moves WHERE code = :c"), {"c": code}
                ).scalar_one()
                owner = conn.execute(
                    sqlalchemy.text("SELECT owner FROM leases WHERE code = :c"), {"c": code}
                ).scalar_one()
        finally:
            db.dispose()
        assert stored >= 3, stored
        assert owner in {s for s, _ in servers}, owner
    finally:
        if proxy is not None:
            proxy.kill()
            proxy.wait(10)
        for cname in names:
            # -v: the anonymous volume of the image's VOLUME goes with it.
            _run(["podman", "rm", "-f", "-v", "-t", "5", cname], env, check=False)
        _run(["podman", "rmi", "-f", image], env, check=False)
        if pg is not None:
            pg.stop()

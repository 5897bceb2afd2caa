"""Readiness (docs/web.md "Liveness", docs/deploy.md): ``/readyz`` answers 200 only while the
instance can serve: the database takes writes at this release's schema, its leases are
renewed, it is not stopping; one probe of the database serves every asker for a second."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest
import uvicorn
from fastapi.testclient import TestClient
from sqlalchemy import create_engine

from seep.web import migrations
from seep.web.app import create_app
from seep.web.routes.operations import READY_CACHE_SECONDS
from seep.web.server import DrainingServer


def _problem(client: TestClient) -> str | None:
    answer = client.get("/readyz")
    if answer.status_code == 200:
        assert answer.json() == {"status": "ok"}
        return None
    assert answer.status_code == 503
    problem: str = answer.json()["problem"]
    return problem


def test_a_stopping_server_is_not_ready(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'seep.db'}")
    with TestClient(app) as client:
        assert _problem(client) is None
        app.state.manager.drain()
        assert _problem(client) == "the server is stopping"
        assert client.get("/healthz").status_code == 200  # the process still answers


def test_the_stop_signal_turns_readiness_off_at_once() -> None:
    stopped: list[bool] = []
    server = DrainingServer(uvicorn.Config(app=None), lambda: stopped.append(True))
    server.handle_exit(signal.SIGTERM, None)
    assert stopped == [True] and server.should_exit


def test_leases_not_renewed_in_time_are_not_ready(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'seep.db'}", instance_id="s1", lease_seconds=3.0)
    with TestClient(app) as client:
        assert _problem(client) is None
        leases = app.state.manager.leases
        leases.renewed -= 3.5  # the heartbeat stalled past the lease
        assert _problem(client) == "the table leases were not renewed in time"


def test_a_schema_behind_is_not_ready_and_says_what_to_run(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'seep.db'}"
    app = create_app(url)
    with TestClient(app) as client:
        assert _problem(client) is None
        engine = create_engine(url)
        with engine.begin() as c:
            migrations.downgrade(c, "-1")
        engine.dispose()
        time.sleep(READY_CACHE_SECONDS)
        problem = _problem(client)
        assert problem is not None and "schema is behind" in problem
        assert "seep db upgrade" in problem


def test_one_probe_a_second_however_many_ask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'seep.db'}")
    store = app.state.store
    probes: list[float] = []
    real = store.problem

    def counted() -> str | None:
        probes.append(time.monotonic())
        return real()

    monkeypatch.setattr(store, "problem", counted)
    with TestClient(app) as client:
        for _ in range(50):
            assert client.get("/readyz").status_code == 200
        assert len(probes) == 1
        time.sleep(READY_CACHE_SECONDS)
        assert client.get("/readyz").status_code == 200
        assert len(probes) == 2

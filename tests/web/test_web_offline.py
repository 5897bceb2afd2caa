"""The offline table's host (issue 27 item 2), in CPython: it answers the page's messages with
the messages the server's socket sends (the same match, seed and moves give the same views, legal
moves and keys), resumes a saved game, refuses as the server does; the bundle the worker loads
imports nothing outside the standard library and our package; the server serves Pyodide and the
bundle with their media types and caching, and its CSP allows WebAssembly and nothing more."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path
from typing import Any

import pytest

from seep.errors import SeepError
from seep.web.offline import OfflineHost
from seep.web.offline_assets import (
    BUNDLE_WEB,
    PYODIDE_FILES,
    bundle,
    offered_difficulties,
    pyodide_version,
)
from seepkit.web import Player, create_table, web_client

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

OPTIONS = {"players": 4, "bots": "easy", "length": "deal", "name": "Asha"}


def _keys(msg: Any, path: str = "") -> set[str]:
    """Every key path of a message (lists through their first item): its shape."""
    out: set[str] = set()
    if isinstance(msg, dict):
        for k, v in msg.items():
            out.add(f"{path}.{k}")
            if k not in ("settings", "args"):  # values, not structure
                out |= _keys(v, f"{path}.{k}")
    elif isinstance(msg, list) and msg:
        out |= _keys(msg[0], f"{path}[]")
    return out


def _choose(msg: dict[str, Any]) -> dict[str, Any]:
    """The first legal move (a deterministic player, the same on both sides)."""
    return dict(msg["legal"][0])


def _server_match(tmp_path: Path) -> tuple[int, list[dict[str, Any]], list[dict[str, Any]]]:
    """A one-deal match on the server, seat 0 always playing its first legal move: the
    table's seed, the states at each of its turns and at the end, and its other answers."""
    with web_client(tmp_path) as (client, manager, checker):
        made = create_table(client, deals=1)
        seed = manager.tables[made["code"]].seed
        me = Player(client, checker, made["code"], made["token"])
        me.until(lambda m: m["type"] == "state")
        me.send({"type": "start"})
        turns: list[dict[str, Any]] = []
        others: list[dict[str, Any]] = []
        while True:
            msg = me.recv()
            if msg["type"] != "state":
                others.append(msg)
                continue
            if msg["summary"] is not None:
                turns.append(msg)
                me.send({"type": "next"})
                final = me.until(
                    lambda m: m["type"] == "state" and m["table"]["status"] != "playing"
                )
                turns.append(final)
                break
            if msg["legal"]:
                turns.append(msg)
                if len(turns) > 1:  # a hint and a refusal once (each socket has a budget)
                    me.send({"type": "move", "move": _choose(msg), "version": msg["version"]})
                    continue
                me.send({"type": "hint"})
                others.append(me.until(lambda m: m["type"] == "hint"))
                me.send({"type": "move", "move": {"action": "bid", "value": 1}, "version": 0})
                others.append(me.error())
                me.send({"type": "move", "move": _choose(msg), "version": msg["version"]})
        return seed, turns, others


def _host_match(seed: int) -> tuple[OfflineHost, list[dict[str, Any]], list[dict[str, Any]]]:
    """The same match in the offline host, driven as the worker drives it."""
    host = OfflineHost(OPTIONS, seed)
    turns: list[dict[str, Any]] = []
    others: list[dict[str, Any]] = []
    out = host.receive(json.dumps({"type": "hello", "token": "ignored"}))
    while True:
        while host.pending():
            out = host.step()
        msg = json.loads(out[-1])
        if msg["summary"] is not None:
            turns.append(msg)
            out = host.receive('{"type": "next"}')
            turns.append(json.loads(out[-1]))
            return host, turns, others
        assert msg["legal"], msg
        turns.append(msg)
        if len(turns) == 1:
            others += [json.loads(t) for t in host.receive('{"type": "hint"}')]
            bad = {"type": "move", "move": {"action": "bid", "value": 1}, "version": 0}
            others += [json.loads(t) for t in host.receive(json.dumps(bad))]
        move = {"type": "move", "move": _choose(msg), "version": msg["version"]}
        out = host.receive(json.dumps(move))


def test_the_host_answers_as_the_server_does(tmp_path: Path) -> None:
    seed, served, others = _server_match(tmp_path)
    host, hosted, host_others = _host_match(seed)
    assert len(served) == len(hosted) >= 5
    for s, h in zip(served, hosted, strict=True):
        assert _keys(s) == _keys(h)
        # The same deal, seen by the same seat: the same view, moves and figures.
        for key in ("seat", "view", "legal", "dead", "dead_reasons", "legal_counts", "last_moves"):
            assert s[key] == h[key], key
        for key in ("match", "summary", "history_sweeps", "clock"):
            assert s[key] == h[key], key
        assert s["table"]["status"] == h["table"]["status"]
        assert [x["kind"] for x in s["table"]["seats"]] == [x["kind"] for x in h["table"]["seats"]]
        assert s["table"]["settings"] == h["table"]["settings"]
    assert hosted[-1]["table"]["status"] == "finished"
    # Hints (the table's own bot for the seat) and refusals: the same messages.
    assert [m["type"] for m in others] == [m["type"] for m in host_others]
    for s, h in zip(others, host_others, strict=True):
        assert _keys(s) == _keys(h)
        assert s.get("code") == h.get("code") and s.get("move") == h.get("move")
    record = host.saved()["record"]
    assert (
        record["seed"] == seed and record["deals"][0]["result"] == hosted[-1]["summary"]["result"]
    )


def test_a_saved_game_resumes_where_it_was() -> None:
    host = OfflineHost(OPTIONS, 2027)
    seen = host.receive('{"type": "hello"}')
    for _ in range(5):
        while host.pending():
            seen = host.step()
        msg = json.loads(seen[-1])
        seen = host.receive(
            json.dumps({"type": "move", "move": _choose(msg), "version": msg["version"]})
        )
    saved = json.loads(host.saved_text())
    assert saved["type"] == "saved" and saved["status"] == "playing" and saved["record"] is None
    again = OfflineHost(saved["options"], saved["seed"], saved["moves"], saved["left"])
    now, then = json.loads(host._state()), json.loads(again._state())
    for key in ("view", "legal", "match", "last_moves"):
        assert now[key] == then[key]
    # A tampered move list is refused by the engine, as a server's restore is.
    broken = [*saved["moves"][:3], {"action": "bid", "value": 1, "seat": 0}]
    with pytest.raises(SeepError):
        OfflineHost(saved["options"], saved["seed"], broken, 0)


def test_the_host_refuses_what_it_does_not_serve() -> None:
    host = OfflineHost({"players": 2, "bots": "medium", "length": "baazi"}, 5)
    answers = [json.loads(t) for t in host.receive('{"type": "chat", "text": "hi"}')]
    assert answers[0]["type"] == "error" and answers[0]["code"] == "not_allowed"
    assert json.loads(host.receive("[1]")[0])["code"] == "bad_request"
    assert json.loads(host.receive("{")[0])["code"] == "bad_request"
    with pytest.raises(Exception, match="players"):
        OfflineHost({"players": 3}, 1)
    with pytest.raises(Exception, match="bots"):
        OfflineHost({"bots": "cheater"}, 1)
    state = json.loads(host.receive('{"type": "hello"}')[0])
    assert len(state["table"]["seats"]) == 2 and state["table"]["settings"]["baazis"] == 1


def test_the_bundle_needs_only_the_standard_library(tmp_path: Path) -> None:
    made = bundle()
    path = tmp_path / "seep.zip"
    path.write_bytes(made.data)
    names = zipfile.ZipFile(path).namelist()
    assert {f"seep/web/{n}" for n in BUNDLE_WEB} <= set(names)
    assert "seep/bots/data/value.json" in names and "seep/web/table.py" not in names
    stdlib = sysconfig.get_paths()["stdlib"]
    paths = [str(path), stdlib, str(Path(stdlib) / "lib-dynload")]
    # Isolated (-I) and without site (-S): no site-packages, no PYTHONPATH, only the zip.
    code = f"""
import json, sys
sys.path[:] = {paths!r}
from seep.errors import SeepError
from seep.web.offline import OfflineHost
from seep.bots import make_bot
for level in ("easy", "medium", "hard", "expert"):
    make_bot(level)
host = OfflineHost({{"players": 4, "bots": "medium"}}, 11)
out = host.receive('{{"type": "hello"}}')
while True:
    while host.pending():
        out = host.step()
    msg = json.loads(out[-1])
    if msg["table"]["status"] == "finished":
        break
    if msg["summary"]:
        out = host.receive('{{"type": "next"}}')
        continue
    move = {{"type": "move", "move": msg["legal"][0], "version": msg["version"]}}
    out = host.receive(json.dumps(move))
top = {{name.split(".")[0] for name in sys.modules}}
print(json.dumps(sorted(top - set(sys.stdlib_module_names) - {{"seep", "__main__"}})))
print(all(m.__file__.startswith({str(path)!r}) for n, m in sys.modules.items()
          if n.startswith("seep") and getattr(m, "__file__", None)))
"""
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    outside, from_zip = done.stdout.split("\n")[:2]
    assert json.loads(outside) == []
    assert from_zip == "True"


def test_the_server_serves_the_offline_files(tmp_path: Path) -> None:
    with web_client(tmp_path) as (client, _, _):
        page = client.get("/offline")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        csp = page.headers["content-security-policy"]
        assert "script-src 'self' 'wasm-unsafe-eval';" in csp
        assert "'unsafe-eval'" not in csp and "'unsafe-inline'" not in csp
        # One service worker, the app's: no second one of the offline table's own.
        assert client.get("/offline/sw.js").status_code == 404
        assert (
            client.get("/offline/worker.js").headers["content-type"].startswith("text/javascript")
        )
        assets = client.get("/offline/assets.json").json()
        assert assets["bundle"] == bundle().url and bundle().url in assets["assets"]
        assert assets["difficulties"] == offered_difficulties()
        # The app's worker precaches the offline table, and copies Pyodide and the bundle
        # from the last version's cache rather than fetching them again.
        worker = client.get("/sw.js").text
        for url in [*assets["assets"], "/offline/assets.json", "/static/js/table.js"]:
            assert json.dumps(url) in worker, url
        immutable = json.loads(worker.split("const IMMUTABLE = ", 1)[1].split(";\n", 1)[0])
        assert bundle().url in immutable and "/offline" not in immutable
        assert "^/offline/?$" in worker
        got = client.get(assets["bundle"])
        assert got.content == bundle().data and "immutable" in got.headers["cache-control"]
        assert client.get("/offline/seep-0000000000000000.zip").status_code == 404
        version = pyodide_version()
        if version is None:
            assert assets["pyodide"] is None
            return
        assert assets["pyodide"] == f"/pyodide/{version}/"
        wasm = client.get(f"/pyodide/{version}/pyodide.asm.wasm")
        assert wasm.headers["content-type"] == "application/wasm"
        assert "immutable" in wasm.headers["cache-control"]
        assert wasm.content[:4] == b"\0asm"
        mjs = client.get(f"/pyodide/{version}/pyodide.mjs")
        assert mjs.headers["content-type"].startswith("text/javascript")
        assert all(f"/pyodide/{version}/{n}" in assets["assets"] for n in PYODIDE_FILES)
        for path in (
            f"/pyodide/{version}/package.json",  # in the folder, not a runtime file
            f"/pyodide/{version}/../offline.py",
            "/pyodide/0.0.0/pyodide.mjs",
        ):
            assert client.get(path).status_code == 404, path


def test_the_offered_difficulties_are_those_measured_under_a_second(tmp_path: Path) -> None:
    path = tmp_path / "offline-bots.json"
    times = {"easy": 3.0, "medium": 40.0, "hard": 700.0, "expert": 4000.0}
    bots = {k: {"median_ms": v / 2, "max_ms": v} for k, v in times.items()}
    path.write_text(json.dumps({"bots": bots}))
    assert offered_difficulties(path) == ["easy", "medium", "hard"]
    assert offered_difficulties(tmp_path / "missing.json") == ["easy", "medium"]


def test_without_pyodide_the_server_works_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import seep.web.routes.offline as routes

    monkeypatch.setattr(routes, "pyodide_version", lambda: None)
    with web_client(tmp_path) as (client, _, _):
        assets = client.get("/offline/assets.json").json()
        assert assets["pyodide"] is None
        assert not any(u.startswith("/pyodide/") for u in assets["assets"])
        assert client.get("/pyodide/314.0.8/pyodide.mjs").status_code == 404
        assert client.get("/offline").status_code == 200
        assert client.get("/api/lobby").status_code == 200

"""``seep train-agent``: Deep Monte-Carlo self-play training of the learned bot's network.

Needs PyTorch (CPU) and numpy (the ``rl`` extra); the ``learned`` bot (:mod:`.learned`) reads
the exported weights with the standard library and never imports this module.

* **Actors** play whole deals with the current network (:func:`play_deals`): every
  play-phase decision of a learning seat scores each legal move from the seat's view
  (:func:`~.learned.decision_features`) and takes the best of the heuristic's
  ``--candidates`` best moves, or with chance ``epsilon`` a random one of them (the network
  learns corrections to the heuristic's order, never a move the heuristic finds poor). The
  bid is the heuristic bot's. In a share ``--mix`` of the deals one
  team (drawn) is the heuristic bot, so the network also learns the games it will be measured
  in; otherwise all four seats learn. Each decision is recorded with its target: what the rest
  of the deal added to the mover's team's score difference (R42, partners share it), the Monte
  Carlo return of the move, in points / 100. Actors are processes on this machine
  (``--actors``), or Ray actors on a cluster (``--address``).
* **One learner** keeps the recent decisions in a buffer and fits the network to them
  (Adam, squared error), handing each actor the current weights with its next batch of deals;
  it replays each decision at most ``--replay`` times on average.
* **Evaluation** at fixed times plays ``--eval-deals`` duplicate deals against the heuristic
  bot (each deal twice, the teams swapped) from ``--eval-seed``: the same deals every time,
  no exploration; ``log.jsonl`` in ``--dir`` gets one line per evaluation (training minutes,
  deals, points per deal against the heuristic and its standard error).
* **Checkpoints** (``checkpoint.pt`` in ``--dir``) after each evaluation and at the end;
  ``--resume`` continues from one (counters, network, optimiser, log; the buffer refills).
  The weights are exported as JSON to ``--export`` (``learned.json`` in ``--dir`` by default),
  and those of the best evaluation to ``best.json``.

The training wall time is ``--minutes``; ``--max-deals`` stops earlier (tests).
``--merge A.json B.json ... --export OUT`` trains nothing: it writes the exports as one
ensemble file (their values averaged; ``--prior`` adds the heuristic's score), the form the
shipped ``learned.json`` takes.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["add_train_agent_parser", "evaluate", "play_deals", "run_train_agent"]


def add_train_agent_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``train-agent`` subcommand to the ``seep`` parser."""
    t = sub.add_parser(
        "train-agent",
        help="train the learned bot by Deep Monte-Carlo self-play (needs the 'rl' extra)",
        description="Deep Monte-Carlo self-play training of the learned bot's network.",
    )
    t.add_argument("--minutes", type=float, default=60.0, help="training wall time (60)")
    t.add_argument("--max-deals", type=int, default=0, help="stop after this many deals")
    t.add_argument("--actors", type=int, default=1, help="self-play actor processes (1)")
    t.add_argument("--address", help="a Ray cluster's address: the actors become Ray actors")
    t.add_argument("--dir", default="runs/agent", help="checkpoints and log (runs/agent)")
    t.add_argument("--resume", action="store_true", help="continue from --dir's checkpoint")
    t.add_argument("--export", help="where to write the weights (--dir/learned.json)")
    t.add_argument("--seed", type=int, default=1, help="seed of the actors and the network")
    t.add_argument("--hidden", default="64,32", help="hidden layer sizes (64,32)")
    t.add_argument("--lr", type=float, default=1e-3, help="Adam's learning rate (0.001)")
    t.add_argument("--batch", type=int, default=256, help="decisions per step (256)")
    t.add_argument("--buffer", type=int, default=100_000, help="decisions kept (100000)")
    t.add_argument("--replay", type=float, default=4.0, help="replays per decision (4)")
    t.add_argument("--deals-per-task", type=int, default=8, help="deals per actor task (8)")
    t.add_argument("--epsilon", type=float, default=0.1, help="exploration at the start")
    t.add_argument("--epsilon-end", type=float, default=0.02, help="... and at the end")
    t.add_argument("--mix", type=float, default=0.5, help="share of deals against heuristic")
    t.add_argument(
        "--oracle",
        action="store_true",
        help="the learner's targets less the value network's score of the full deal",
    )
    t.add_argument(
        "--candidates",
        type=int,
        default=4,
        help="the network chooses among the heuristic's this many best moves (4; 0: all)",
    )
    t.add_argument("--eval-deals", type=int, default=200, help="deals per evaluation (200)")
    t.add_argument("--eval-every", type=float, default=4.0, help="minutes between evaluations")
    t.add_argument("--eval-seed", type=int, default=7, help="seed of the evaluation deals")
    t.add_argument(
        "--merge",
        nargs="+",
        metavar="JSON",
        help="train nothing: write these exports as one ensemble (their values averaged) "
        "to --export",
    )
    t.add_argument(
        "--prior",
        type=float,
        default=0.0,
        help="with --merge: the weight of the heuristic's score (points) added to the "
        "ensemble's value (points) of a move (0)",
    )


# --- the network (torch) --------------------------------------------------------------------


def _model(hidden: tuple[int, int]) -> Any:
    import torch
    from torch import nn

    from .learned import N_MOVE, N_STATE

    h1, h2 = hidden
    return nn.Sequential(
        nn.Linear(N_STATE + N_MOVE, h1),
        nn.ReLU(),
        nn.Linear(h1, h2),
        nn.ReLU(),
        nn.Linear(h2, 1),
    ).to(torch.float32)


def _weights(model: Any, candidates: int = 0) -> dict[str, Any]:
    """The network as the JSON the learned bot reads (without ``info``)."""
    from .learned import MOVE_NAMES, STATE_NAMES

    l1, l2, l3 = model[0], model[2], model[4]

    def rows(t: Any) -> list[list[float]]:
        return [[round(float(v), 6) for v in row] for row in t.detach().tolist()]

    def flat(t: Any) -> list[float]:
        return [round(float(v), 6) for v in t.detach().reshape(-1).tolist()]

    return {
        "state": list(STATE_NAMES),
        "move": list(MOVE_NAMES),
        "w1": rows(l1.weight),
        "b1": flat(l1.bias),
        "w2": rows(l2.weight),
        "b2": flat(l2.bias),
        "w3": flat(l3.weight),
        "b3": flat(l3.bias)[0],
        "candidates": candidates,
    }


def _load_weights(model: Any, data: dict[str, Any]) -> None:
    import torch

    l1, l2, l3 = model[0], model[2], model[4]
    with torch.no_grad():
        l1.weight.copy_(torch.tensor(data["w1"]))
        l1.bias.copy_(torch.tensor(data["b1"]))
        l2.weight.copy_(torch.tensor(data["w2"]))
        l2.bias.copy_(torch.tensor(data["b2"]))
        l3.weight.copy_(torch.tensor([data["w3"]]))
        l3.bias.copy_(torch.tensor([data["b3"]]))


def _hidden(data: dict[str, Any]) -> tuple[int, int]:
    return len(data["b1"]), len(data["b2"])


# --- actors ---------------------------------------------------------------------------------


class _Player:
    """Greedy (or epsilon-greedy) play of a torch network over the learned bot's features."""

    def __init__(self, data: dict[str, Any]) -> None:
        import torch

        from .heuristic import HeuristicBot

        torch.set_num_threads(1)
        self.model = _model(_hidden(data))
        _load_weights(self.model, data)
        self.model.eval()
        self.heuristic = HeuristicBot()
        self.candidates = int(data.get("candidates", 0))

    def pick(
        self, view: Any, codes: list[int], rng: random.Random | None = None, epsilon: float = 0.0
    ) -> tuple[int, Any]:
        """The index in ``codes`` of the best of the heuristic's ``candidates`` best moves
        (with chance ``epsilon`` a random one of them) and its feature row."""
        import numpy as np
        import torch

        from .learned import candidates, decision_features

        state, moves, scored = decision_features(view, codes, self.heuristic)
        pool = candidates(scored, self.candidates)
        if rng is not None and rng.random() < epsilon:
            i = pool[rng.randrange(len(pool))]
            return i, np.asarray(state + moves[i], dtype=np.float32)
        rows = np.asarray([state + moves[i] for i in pool], dtype=np.float32)
        with torch.no_grad():
            q = self.model(torch.from_numpy(rows)).reshape(-1).tolist()
        # The first of equal values: the heuristic's order, as the learned bot breaks ties.
        j = max(range(len(pool)), key=lambda j: (q[j], -j))
        return pool[j], rows[j]


def _margin(pos: Any, team: int) -> int:
    s0, s1 = pos.deal_scores()
    return int(s0 - s1 if team == 0 else s1 - s0)


def play_deals(
    data: dict[str, Any], deals: int, seed: int, epsilon: float, mix: float, oracle: bool = False
) -> tuple[Any, Any, dict[str, float]]:
    """Self-play ``deals`` deals with the network ``data`` (:func:`_weights`' JSON): the
    feature rows of the learning seats' decisions, their Monte Carlo targets (points / 100)
    and a few counts.

    ``oracle``: each target is the deal's final margin less the value network's estimate of
    it (:mod:`.valuenet`) on the full position at the decision, every hand seen. The estimate
    does not depend on the move chosen from the view, so each decision's targets shift by the
    same amount for every move and the best move stays the best; what it removes is the luck
    of the hidden cards, the noise of the targets. Only the targets see the hidden cards;
    the network's inputs are the view's."""
    import numpy as np

    from ..codes import PHASE_PLAY
    from ..engine import Position
    from ..view import View
    from .learned import N_MOVE, N_STATE

    player = _Player(data)
    heuristic = player.heuristic
    value = None
    if oracle:
        from .ismcts import estimate
        from .valuenet import load_value

        value = load_value(estimate)
    rng = random.Random(seed)
    xs: list[Any] = []
    ys: list[float] = []
    for _ in range(deals):
        pos = Position.new_deal(rng.randrange(1 << 30), rng.randrange(4))
        # The heuristic's team (0 or 1), or -1: all four seats learn.
        fixed = rng.randrange(2) if rng.random() < mix else -1
        rows: list[tuple[Any, int, float]] = []
        while not pos.is_over():
            seat = pos.to_move
            assert seat is not None
            view = View.from_position(pos, seat)
            if pos.phase_id != PHASE_PLAY or seat & 1 == fixed:
                code = int(heuristic.choose(view, rng).move)
            else:
                codes = sorted(view.legal_codes())
                if len(codes) == 1:
                    code = codes[0]
                else:
                    i, row = player.pick(view, codes, rng, epsilon)
                    if value is None:
                        before = float(_margin(pos, seat & 1))
                    else:
                        v = value(pos)  # team 0 less team 1 at the deal's end, expected
                        before = v if seat & 1 == 0 else -v
                    rows.append((row, seat & 1, before))
                    code = codes[i]
            pos.push(code)
        final = (_margin(pos, 0), _margin(pos, 1))
        for row, team, before in rows:
            xs.append(row)
            ys.append((final[team] - before) / 100.0)
    x = np.asarray(xs, dtype=np.float32).reshape(-1, N_STATE + N_MOVE)
    return x, np.asarray(ys, dtype=np.float32), {"deals": float(deals)}


def evaluate(data: dict[str, Any], deals: int, seed: int) -> tuple[float, float]:
    """Mean points per deal of the network (greedy) against the heuristic bot over ``deals``
    duplicate deals from ``seed`` (each deal played twice, the teams swapped), and its
    standard error over the deal pairs."""
    from ..codes import PHASE_PLAY
    from ..engine import Position
    from ..view import View

    player = _Player(data)
    heuristic = player.heuristic
    rng = random.Random(seed)
    pairs = max(1, deals // 2)
    results: list[float] = []
    for k in range(pairs):
        deal_seed, dealer = rng.randrange(1 << 30), rng.randrange(4)
        total = 0.0
        for team in (0, 1):
            brng = random.Random(deal_seed * 2 + team)
            pos = Position.new_deal(deal_seed, dealer)
            while not pos.is_over():
                seat = pos.to_move
                assert seat is not None
                view = View.from_position(pos, seat)
                codes = sorted(view.legal_codes())
                if pos.phase_id == PHASE_PLAY and seat & 1 == team and len(codes) > 1:
                    code = codes[player.pick(view, codes)[0]]
                else:
                    code = int(heuristic.choose(view, brng).move)
                pos.push(code)
            total += _margin(pos, team)
        results.append(total / 2.0)
        del k
    mean = sum(results) / len(results)
    var = sum((r - mean) ** 2 for r in results) / max(1, len(results) - 1)
    return mean, math.sqrt(var / len(results))


# --- actor pools: processes here, or Ray actors on a cluster --------------------------------


class _ProcessPool:
    """``actors`` worker processes, one task (a batch of deals) in flight on each."""

    def __init__(self, actors: int) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.pool = ProcessPoolExecutor(actors, mp_context=multiprocessing.get_context("spawn"))
        self.pending: dict[Any, int] = {}

    def submit(self, actor: int, *args: Any) -> None:
        self.pending[self.pool.submit(play_deals, *args)] = actor

    def ready(self, timeout: float) -> list[tuple[int, Any]]:
        from concurrent.futures import FIRST_COMPLETED, wait

        done, _ = wait(list(self.pending), timeout=timeout, return_when=FIRST_COMPLETED)
        return [(self.pending.pop(f), f.result()) for f in done]

    def close(self) -> None:
        self.pool.shutdown(cancel_futures=True)


class _RayPool:
    """``actors`` Ray actors (``ray.init(address)``), one task in flight on each."""

    def __init__(self, actors: int, address: str) -> None:
        import ray

        # "local": a Ray started here for this run (and shut down after it).
        self.started = address == "local" and not ray.is_initialized()
        ray.init(address=None if address == "local" else address, ignore_reinit_error=True)

        @ray.remote(num_cpus=1)
        class Actor:
            def play(self, *args: Any) -> Any:
                return play_deals(*args)

        self.ray = ray
        self.actors = [Actor.remote() for _ in range(actors)]  # type: ignore[attr-defined]
        self.pending: dict[Any, int] = {}

    def submit(self, actor: int, *args: Any) -> None:
        self.pending[self.actors[actor].play.remote(*args)] = actor

    def ready(self, timeout: float) -> list[tuple[int, Any]]:
        done, _ = self.ray.wait(list(self.pending), num_returns=1, timeout=timeout)
        return [(self.pending.pop(r), self.ray.get(r)) for r in done]

    def close(self) -> None:
        for a in self.actors:
            self.ray.kill(a)
        if self.started:
            self.ray.shutdown()


# --- the learner ----------------------------------------------------------------------------


def _merge(paths: list[str], export: str | None, prior: float) -> int:
    """``--merge``: the exports ``paths`` as one ensemble file (no torch needed)."""
    from ..errors import SeepError
    from .learned import merge_weights

    if not export:
        print("seep train-agent --merge needs --export FILE", file=sys.stderr)
        return 2
    try:
        exports = [json.loads(Path(p).read_text(encoding="utf-8")) for p in paths]
        data = merge_weights(exports, prior)
    except (OSError, ValueError, SeepError) as exc:
        print(f"seep train-agent --merge: {exc}", file=sys.stderr)
        return 2
    data["info"]["command"] = f"seep train-agent --merge {' '.join(paths)} --prior {prior:g}"
    Path(export).write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{len(paths)} networks written to {export}")
    return 0


def run_train_agent(args: argparse.Namespace) -> int:
    """Run ``seep train-agent`` from parsed arguments; returns the exit status."""
    if args.merge:
        return _merge(args.merge, args.export, args.prior)
    try:
        import numpy as np
        import torch
    except ImportError:
        print(
            "seep train-agent needs torch and numpy: pip install 'seep-game[rl]'", file=sys.stderr
        )
        return 2
    try:
        h1, h2 = (int(v) for v in str(args.hidden).split(","))
    except ValueError:
        print("seep train-agent: --hidden is two sizes, e.g. 64,32", file=sys.stderr)
        return 2
    if min(h1, h2, args.actors, args.batch, args.buffer, args.deals_per_task) < 1:
        print("seep train-agent: sizes and counts must be at least 1", file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    out = Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    ckpt_path = out / "checkpoint.pt"
    export = Path(args.export) if args.export else out / "learned.json"
    model = _model((h1, h2))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    state: dict[str, Any] = {
        "seconds": 0.0,
        "deals": 0,
        "samples": 0,
        "steps": 0,
        "tasks": 0,
        "log": [],
        "best": None,
    }
    if args.resume:
        if not ckpt_path.exists():
            print(f"seep train-agent: --resume: no {ckpt_path}", file=sys.stderr)
            return 2
        saved = torch.load(ckpt_path, weights_only=False)
        model.load_state_dict(saved["model"])
        opt.load_state_dict(saved["opt"])
        for group in opt.param_groups:  # --lr holds on a resumed run too
            group["lr"] = args.lr
        state = saved["state"]
    command = (
        " ".join(["seep train-agent", *sys.argv[2:]])
        if sys.argv[1:2] == ["train-agent"]
        else "seep train-agent"
    )
    dim = model[0].in_features
    buf_x = np.zeros((args.buffer, dim), dtype=np.float32)
    buf_y = np.zeros(args.buffer, dtype=np.float32)
    filled = 0
    head = 0
    replayed = 0.0  # decisions fed to the learner since start (or resume)
    collected = 0
    gen = np.random.default_rng(args.seed + state["tasks"])
    budget = args.minutes * 60.0
    start_seconds = float(state["seconds"])
    t0 = time.monotonic()
    last_eval = start_seconds
    loss_sum, loss_n = 0.0, 0

    def elapsed() -> float:
        return start_seconds + time.monotonic() - t0

    def epsilon() -> float:
        share = min(1.0, elapsed() / max(budget, 1e-9))
        return float(args.epsilon + (args.epsilon_end - args.epsilon) * share)

    def save() -> None:
        state["seconds"] = elapsed()
        torch.save(
            {"model": model.state_dict(), "opt": opt.state_dict(), "state": state}, ckpt_path
        )

    def write(path: Path, info: dict[str, Any]) -> None:
        data = _weights(model, args.candidates)
        data["info"] = info
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data) + "\n", encoding="utf-8")

    def run_eval() -> None:
        nonlocal loss_sum, loss_n
        model.eval()
        mean, se = evaluate(_weights(model, args.candidates), args.eval_deals, args.eval_seed)
        model.train()
        entry = {
            "minutes": round(elapsed() / 60.0, 2),
            "deals": state["deals"],
            "samples": state["samples"],
            "steps": state["steps"],
            "loss": round(loss_sum / loss_n, 5) if loss_n else None,
            "vs_heuristic": round(mean, 2),
            "se": round(se, 2),
            "eval_deals": 2 * max(1, args.eval_deals // 2),
        }
        loss_sum, loss_n = 0.0, 0
        state["log"].append(entry)
        with open(out / "log.jsonl", "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")
        print(json.dumps(entry), flush=True)
        if state["best"] is None or mean > state["best"]["vs_heuristic"]:
            state["best"] = entry
            write(out / "best.json", {"command": command, "evaluation": entry})
        save()

    pool: _ProcessPool | _RayPool = (
        _RayPool(args.actors, args.address) if args.address else _ProcessPool(args.actors)
    )

    def submit(actor: int) -> None:
        seed = args.seed * 1_000_003 + state["tasks"]
        state["tasks"] += 1
        pool.submit(
            actor,
            _weights(model, args.candidates),
            args.deals_per_task,
            seed,
            epsilon(),
            args.mix,
            args.oracle,
        )

    try:
        for a in range(args.actors):
            submit(a)
        if not state["log"]:
            run_eval()
        while elapsed() < budget:
            can_learn = filled >= min(args.batch, args.buffer) and (
                replayed < args.replay * collected
            )
            # --max-deals: the deals played are learnt from before the run stops.
            if args.max_deals and state["deals"] >= args.max_deals and not can_learn:
                break
            done = args.max_deals and state["deals"] >= args.max_deals
            for actor, (x, y, stats) in [] if done else pool.ready(0.0 if can_learn else 1.0):
                n = len(y)
                for i in range(n):  # a ring buffer of the newest decisions
                    buf_x[head] = x[i]
                    buf_y[head] = y[i]
                    head = (head + 1) % args.buffer
                filled = min(args.buffer, filled + n)
                collected += n
                state["samples"] += n
                state["deals"] += int(stats["deals"])
                submit(actor)
            if can_learn:
                idx = gen.integers(0, filled, args.batch)
                xb = torch.from_numpy(buf_x[idx])
                yb = torch.from_numpy(buf_y[idx])
                loss = torch.mean((model(xb).reshape(-1) - yb) ** 2)
                opt.zero_grad()
                loss.backward()  # type: ignore[no-untyped-call]
                opt.step()
                state["steps"] += 1
                replayed += args.batch
                loss_sum += float(loss.detach())
                loss_n += 1
            if elapsed() - last_eval >= args.eval_every * 60.0:
                run_eval()
                last_eval = elapsed()
        run_eval()
    finally:
        pool.close()
    write(
        export,
        {
            "command": command,
            "minutes": round(elapsed() / 60.0, 1),
            "deals": state["deals"],
            "samples": state["samples"],
            "last": state["log"][-1] if state["log"] else None,
            "best": state["best"],
        },
    )
    print(json.dumps({"export": str(export), "deals": state["deals"]}), flush=True)
    return 0

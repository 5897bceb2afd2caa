"""``seep train``: fit the value network (:mod:`seep.bots.valuenet`) from self-play records.

Needs numpy (the ``train`` extra); the bots that use the network never import this module.

1. **Records.** Self-play deals of a bot (default ``heuristic``) are played with the arena
   (:func:`seep.arena.self_play_records`, docs/format.md game records) from ``--seed``: the
   command line hands :func:`run_train` that function, so this module never imports the
   arena; or read from ``--records FILE`` (``seep arena A B --records FILE``).
2. **Positions.** Every play-phase position of every deal is replayed; its features
   (:func:`~seep.bots.valuenet.features`) are paired with what the rest of the deal added to
   the score difference, from the side to move, in points / 100.
3. **Fit.** A one-hidden-layer ``tanh`` network, full-batch Adam on the squared error, from a
   seeded initialisation; one deal in ten (by index) is held out to report the validation
   error next to that of ``estimate`` alone (the feature ``estimate``).

The result is the JSON the bots read (``src/seep/bots/data/value.json`` by default), with
the command's settings and figures in its ``info``. The same settings and seed give the same
file.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["add_train_parser", "dataset", "fit", "run_train"]

DEFAULT_OUT = Path(__file__).with_name("data") / "value.json"


def add_train_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``train`` subcommand to the ``seep`` parser."""
    t = sub.add_parser(
        "train",
        help="train the bots' value network from self-play (needs the 'train' extra)",
        description="Fit the value network of the ISMCTS bots from self-play game records.",
    )
    t.add_argument("--deals", type=int, default=2000, help="self-play deals (default 2000)")
    t.add_argument("--bot", default="heuristic", help="the self-play bot (default heuristic)")
    t.add_argument("--records", metavar="FILE", help="train on these records instead")
    t.add_argument("--seed", type=int, default=1, help="seed of the deals and the fit")
    t.add_argument("--hidden", type=int, default=16, help="hidden units (default 16)")
    t.add_argument("--epochs", type=int, default=600, help="full-batch Adam steps (600)")
    t.add_argument("--workers", type=int, default=1, help="arena worker processes")
    t.add_argument("--out", default=str(DEFAULT_OUT), help="where to write the weights")


def _bar(label: str, done: int, total: int) -> None:
    if not sys.stderr.isatty():
        return
    filled = 30 * done // max(total, 1)
    end = "\n" if done >= total else ""
    sys.stderr.write(f"\r{label} [{'#' * filled}{'-' * (30 - filled)}] {done}/{total}{end}")
    sys.stderr.flush()


def dataset(records: list[dict[str, Any]]) -> tuple[Any, Any, Any]:
    """Features, targets and deal indices of every play-phase position of ``records``."""
    import numpy as np

    from ..codes import PHASE_PLAY
    from ..format import position_from_dict
    from ..moves import Move
    from .ismcts import estimate
    from .valuenet import features

    xs: list[list[float]] = []
    ys: list[float] = []
    deal_ids: list[int] = []
    k = 0
    for n, record in enumerate(records):
        for deal in record["deals"]:
            pos = position_from_dict(deal["start"])
            rows: list[tuple[list[float], int, float]] = []
            for mv in deal["moves"]:
                if pos.phase_id == PHASE_PLAY:
                    s0, s1 = pos.deal_scores()
                    mover = pos.to_move
                    assert mover is not None
                    rows.append((features(pos, estimate(pos)), mover & 1, float(s0 - s1)))
                pos.push(int(Move.from_dict(mv)))
            f0, f1 = pos.deal_scores()
            final = float(f0 - f1)
            for x, team, now in rows:
                rest = final - now
                xs.append(x)
                ys.append((rest if team == 0 else -rest) / 100.0)
                deal_ids.append(k)
            k += 1
        _bar("positions", n + 1, len(records))
    return np.asarray(xs), np.asarray(ys), np.asarray(deal_ids)


def fit(x: Any, y: Any, hidden: int, epochs: int, seed: int) -> tuple[dict[str, Any], float]:
    """A network fitted to ``(x, y)`` (full-batch Adam, squared error) and its last loss."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n_in = x.shape[1]
    params = {
        "w1": rng.normal(0.0, 1.0 / np.sqrt(n_in), (hidden, n_in)),
        "b1": np.zeros(hidden),
        "w2": rng.normal(0.0, 1.0 / np.sqrt(hidden), hidden),
        "b2": np.zeros(()),
    }
    m = {k: np.zeros_like(v) for k, v in params.items()}
    s = {k: np.zeros_like(v) for k, v in params.items()}
    lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-8
    loss = 0.0
    for t in range(1, epochs + 1):
        h = np.tanh(x @ params["w1"].T + params["b1"])
        out = h @ params["w2"] + params["b2"]
        err = out - y
        loss = float(np.mean(err**2))
        g_out = 2.0 * err / len(y)
        grads = {"w2": h.T @ g_out, "b2": g_out.sum()}
        g_h = np.outer(g_out, params["w2"]) * (1.0 - h**2)
        grads["w1"] = g_h.T @ x
        grads["b1"] = g_h.sum(axis=0)
        for k in params:
            m[k] = b1 * m[k] + (1 - b1) * grads[k]
            s[k] = b2 * s[k] + (1 - b2) * grads[k] ** 2
            mh = m[k] / (1 - b1**t)
            sh = s[k] / (1 - b2**t)
            params[k] = params[k] - lr * mh / (np.sqrt(sh) + eps)
        if t % 10 == 0 or t == epochs:
            _bar("fit", t, epochs)
    return params, loss


def _predict(params: dict[str, Any], x: Any) -> Any:
    import numpy as np

    return np.tanh(x @ params["w1"].T + params["b1"]) @ params["w2"] + params["b2"]


#: ``self_play(bot, deals, seed, workers, progress)``: the game records of self-play deals
#: (:func:`seep.arena.self_play_records`); ``progress(done, total, deals)`` as the arena calls it.
SelfPlay = Callable[[str, int, int, int, Callable[[int, int, int], None]], list[dict[str, Any]]]


def run_train(args: argparse.Namespace, self_play: SelfPlay) -> int:
    """Run ``seep train`` from parsed arguments, playing the self-play deals (unless
    ``--records`` gives them) with ``self_play``; returns the exit status."""
    try:
        import numpy as np
    except ImportError:
        print("seep train needs numpy: pip install 'seep-game[train]'", file=sys.stderr)
        return 2
    from .valuenet import FEATURE_NAMES

    if args.deals < 1 or args.hidden < 1 or args.epochs < 1:
        print("seep train: --deals, --hidden and --epochs must be at least 1", file=sys.stderr)
        return 2
    if args.records:
        try:
            with open(args.records, encoding="utf-8") as f:
                records = [json.loads(line) for line in f if line.strip()]
        except (OSError, ValueError) as exc:
            print(f"seep train: --records: {exc}", file=sys.stderr)
            return 2
        source = f"records {Path(args.records).name}"
    else:
        pairs = (args.deals + 1) // 2

        def progress(done: int, total: int, deals: int) -> None:
            _bar("self-play", done, total)

        records = self_play(args.bot, 2 * pairs, args.seed, args.workers, progress)
        source = f"{2 * pairs} self-play deals of {args.bot}, arena seed {args.seed}"
    x, y, deal = dataset(records)
    held = deal % 10 == 0
    params, loss = fit(x[~held], y[~held], args.hidden, args.epochs, args.seed)
    val = float(np.mean((_predict(params, x[held]) - y[held]) ** 2))
    base = float(np.mean((x[held, 0] - y[held]) ** 2))
    info = {
        "command": (
            f"seep train --deals {args.deals} --bot {args.bot} --seed {args.seed} "
            f"--hidden {args.hidden} --epochs {args.epochs}"
            if not args.records
            else f"seep train --records FILE --seed {args.seed} --hidden {args.hidden} "
            f"--epochs {args.epochs}"
        ),
        "source": source,
        "positions": len(y),
        "train_mse": round(loss, 5),
        "validation_mse": round(val, 5),
        "estimate_validation_mse": round(base, 5),
    }
    data = {
        "features": list(FEATURE_NAMES),
        "w1": [[round(float(v), 6) for v in row] for row in params["w1"]],
        "b1": [round(float(v), 6) for v in params["b1"]],
        "w2": [round(float(v), 6) for v in params["w2"]],
        "b2": round(float(params["b2"]), 6),
        "info": info,
    }
    out = Path(args.out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        print(f"seep train: --out: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(info))
    return 0

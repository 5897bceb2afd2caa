"""Supervised learning from game records: (observation, action mask, action, return) arrays.

``seep dataset --deals N --bot NAME --out DIR`` (:mod:`seep.arena.dataset`) writes self-play
deals as docs/format.md game records, one a line. This module replays them through the engine
and cuts every move into the sub-decisions of the environments' action space
(:mod:`seep.integrations.actions`), each with the observation
(:func:`seep.integrations.features.position_observation`) and the action mask
(:meth:`~seep.integrations.actions.MoveBuilder.mask`) that the Gymnasium, PettingZoo and vector
environments give the mover at that step. A policy trained on these arrays therefore plays in
the environments, and as a bot through a :class:`~seep.integrations.actions.MoveBuilder` on its
view (``examples/bc_baseline.py``).

The *return* of a decision is what the environments pay its seat at the deal's end with
``reward_scale=1``: the deal score (R42, the record's ``result.score``) of the mover's team
minus the other team's. Every decision of every seat is kept (all four seats are the bot).

Every record is checked as it is read: the start position strictly
(:func:`seep.format.position_from_dict`), each move's legality and seat, and the stored
result against the replay. A bad line raises :class:`DatasetError` naming the file and line.

Observations are kept packed (the 0/1 entries as bits, the 13 real values as float32: about
140 bytes a decision instead of 2 KB) and unpacked a batch at a time.

>>> import tempfile
>>> from seep.arena.dataset import write_dataset
>>> tmp = tempfile.TemporaryDirectory()
>>> _ = write_dataset(tmp.name, "greedy", deals=2, seed=1)
>>> data = load_dataset(tmp.name)
>>> data.deals, len(data) > 2 * 48
(2, True)
>>> batch = next(data.batches(32, seed=0))
>>> batch.observation.shape, batch.action_mask.shape, batch.action.shape, batch.ret.shape
((32, 504), (32, 133), (32,), (32,))
>>> bool((batch.action_mask[np.arange(32), batch.action] == 1).all())
True
>>> tmp.cleanup()
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from ..errors import SeepError
from ..format import position_from_dict
from ..moves import Move
from ..options import Rules
from ..scoring import deal_result
from .actions import NUM_ACTIONS, MoveBuilder, move_actions
from .features import OBS_FIELDS, OBS_SIZE, mask_array, position_observation
from .hotpath import REAL_FIELDS

__all__ = [
    "Batch",
    "DatasetError",
    "Decision",
    "DecisionSet",
    "dataset_files",
    "decisions",
    "load_dataset",
    "read_records",
]

MANIFEST = "manifest.json"  # as seep.arena.dataset writes it (the arena is not imported here)

_REAL_IDX = np.concatenate(
    [np.arange(OBS_FIELDS[f].start, OBS_FIELDS[f].stop) for f in REAL_FIELDS]
)
_BIN = np.ones(OBS_SIZE, np.bool_)
_BIN[_REAL_IDX] = False
_BIN_IDX = np.flatnonzero(_BIN)
_BIN_BYTES = (len(_BIN_IDX) + 7) // 8
_MASK_BYTES = (NUM_ACTIONS + 7) // 8


#: Which decisions: an array of their row numbers.
Index = npt.NDArray[np.integer[Any]]


class DatasetError(SeepError):
    """A dataset file that cannot be read: the message names the file and line."""


class Decision(NamedTuple):
    """One sub-decision of one move, as the environments show it to the mover."""

    observation: npt.NDArray[np.float32]  # (OBS_SIZE,)
    action_mask: npt.NDArray[np.int8]  # (NUM_ACTIONS,), 1 = allowed
    action: int  # the action id the record's move takes here
    ret: float  # the mover's team's deal score minus the other team's
    seat: int


class Batch(NamedTuple):
    """A batch of decisions as arrays (``observation`` float32 ``(B, OBS_SIZE)``,
    ``action_mask`` int8 ``(B, NUM_ACTIONS)``, ``action`` int64 ``(B,)``, ``ret`` float32
    ``(B,)``)."""

    observation: npt.NDArray[np.float32]
    action_mask: npt.NDArray[np.int8]
    action: npt.NDArray[np.int64]
    ret: npt.NDArray[np.float32]


# --- reading ----------------------------------------------------------------------------------


def dataset_files(path: str | Path) -> list[Path]:
    """The record files of ``path``: a directory written by ``seep dataset`` (the files its
    manifest lists, in order; all must be there), a directory of ``*.jsonl`` files without a
    manifest (sorted by name), or one file."""
    root = Path(path)
    if not root.is_dir():
        if not root.exists():
            raise DatasetError(f"{root}: no such file or directory")
        return [root]
    manifest = root / MANIFEST
    if not manifest.exists():
        files = sorted(root.glob("*.jsonl"))
        if not files:
            raise DatasetError(f"{root}: no manifest.json and no .jsonl files")
        return files
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
        names = [str(f["name"]) for f in data["files"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DatasetError(f"{manifest}: not a dataset manifest ({exc})") from None
    missing = [n for n in names if not (root / n).exists()]
    if missing:
        raise DatasetError(
            f"{root}: incomplete, {len(missing)} of {len(names)} files missing (first "
            f"{missing[0]}): run the seep dataset command again to finish it"
        )
    return [root / n for n in names]


def read_records(path: str | Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, record)`` for every line of the files of ``path`` (:func:`dataset_files`);
    ``where`` is ``"FILE:LINE"``. Blank lines are skipped; a line that is not a JSON object
    raises :class:`DatasetError`."""
    for file in dataset_files(path):
        try:
            lines = file.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise DatasetError(f"{file}: {exc}") from None
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{file}:{n}"
            try:
                record = json.loads(line)
            except ValueError as exc:
                raise DatasetError(f"{where}: not JSON ({exc})") from None
            if not isinstance(record, dict):
                raise DatasetError(f"{where}: not a game record (a JSON object)")
            yield where, record


def decisions(record: Mapping[str, Any], where: str = "record") -> Iterator[Decision]:
    """Every sub-decision of every finished deal of a game record, replayed and checked
    (raises :class:`DatasetError` naming ``where`` and the deal and move)."""
    for _deal, seat, obs, mask, action, ret in _replay(record, where):
        yield Decision(obs, mask_array(mask), action, ret, seat)


def _replay(
    record: Mapping[str, Any], where: str
) -> Iterator[tuple[int, int, npt.NDArray[np.float32], int, int, float]]:
    """(deal index, seat, observation, mask as an int, action, return) per decision: the
    replay that
    :func:`decisions` and :func:`load_dataset` share."""
    if record.get("format", "seep/1") != "seep/1":
        raise DatasetError(f"{where}: format {record.get('format')!r}, not 'seep/1'")
    deals = record.get("deals")
    if not isinstance(deals, list) or not deals:
        raise DatasetError(f"{where}: a game record needs a non-empty list 'deals'")
    try:
        rules = Rules.parse(record.get("rules", "standard"))
    except SeepError as exc:
        raise DatasetError(f"{where}: {exc}") from None
    for i, deal in enumerate(deals, 1):
        at = f"{where}: deal {i}"
        if not isinstance(deal, Mapping) or not isinstance(deal.get("moves"), list):
            raise DatasetError(f"{at}: needs 'start', 'moves' and 'result'")
        if not isinstance(deal.get("result"), Mapping):
            raise DatasetError(f"{at}: no 'result': only finished deals can be learned from")
        try:
            pos = position_from_dict(deal.get("start"))
        except SeepError as exc:
            raise DatasetError(f"{at}: start: {exc}") from None
        if pos.rules != rules:
            raise DatasetError(f"{at}: its rules differ from the record's")
        # The decisions wait for the deal's score before they are handed out.
        pending: list[tuple[int, npt.NDArray[np.float32], int, int]] = []
        for j, mv in enumerate(deal["moves"], 1):
            seat = pos.to_move
            try:
                if not isinstance(mv, Mapping):
                    raise SeepError("a move is a JSON object")
                code = int(Move.from_dict(mv))
                if seat is None:
                    raise SeepError("the deal is already over")
                if mv.get("seat", seat) != seat:
                    raise SeepError(
                        f"recorded for seat {mv.get('seat')} but seat {seat} is to move"
                    )
                legal = pos.legal_codes()
                if code not in legal:
                    raise SeepError(f"{Move(code)} is not a legal move here")
            except (SeepError, ValueError) as exc:
                raise DatasetError(f"{at}, move {j}: {exc}") from None
            builder = MoveBuilder(legal)
            for a in move_actions(code, legal):
                obs = position_observation(pos, seat, builder)
                pending.append((seat, obs, builder.mask(), a))
                builder.apply(a)
            pos.push(code)
        if not pos.is_over():
            raise DatasetError(f"{at}: has a result but is not over ({pos.plays} of 48 plays)")
        got = deal_result(pos)
        for key in ("points", "sweeps", "score"):
            if key in deal["result"] and deal["result"][key] != got[key]:
                raise DatasetError(
                    f"{at}: recorded {key} {deal['result'][key]} but the replay gives {got[key]}"
                )
        score = got["score"]
        for seat, obs, mask, a in pending:
            team = seat & 1
            yield i - 1, seat, obs, mask, a, float(score[team] - score[1 - team])


# --- the arrays -------------------------------------------------------------------------------


@dataclass
class DecisionSet:
    """The decisions of a dataset, packed; :meth:`batches` and :meth:`arrays` unpack them.

    ``deal`` numbers each decision's deal (0, 1, ... in reading order) and ``where`` names the
    line each deal came from."""

    obs_bits: npt.NDArray[np.uint8]  # (N, bytes): the 0/1 entries, little-endian bits
    obs_reals: npt.NDArray[np.float32]  # (N, 13): the real-valued entries
    mask_bits: npt.NDArray[np.uint8]  # (N, 17): the action masks, little-endian bits
    action: npt.NDArray[np.int64]
    ret: npt.NDArray[np.float32]
    seat: npt.NDArray[np.int8]
    deal: npt.NDArray[np.int32]
    where: list[str]

    def __len__(self) -> int:
        return len(self.action)

    @property
    def deals(self) -> int:
        """The number of deals."""
        return len(self.where)

    def observations(self, idx: Index) -> npt.NDArray[np.float32]:
        """The observations of the decisions ``idx`` (row numbers), float32
        ``(len(idx), OBS_SIZE)``: what the environments gave."""
        bits = np.unpackbits(self.obs_bits[idx], axis=1, bitorder="little")
        out = np.zeros((bits.shape[0], OBS_SIZE), np.float32)
        out[:, _BIN_IDX] = bits[:, : len(_BIN_IDX)]
        out[:, _REAL_IDX] = self.obs_reals[idx]
        return out

    def masks(self, idx: Index) -> npt.NDArray[np.int8]:
        """The action masks of the decisions ``idx``, int8 ``(len(idx), NUM_ACTIONS)``."""
        bits = np.unpackbits(self.mask_bits[idx], axis=1, bitorder="little")
        out: npt.NDArray[np.int8] = bits[:, :NUM_ACTIONS].view(np.int8)
        return out

    def batch(self, idx: Index) -> Batch:
        """The decisions ``idx`` as a :class:`Batch`."""
        return Batch(self.observations(idx), self.masks(idx), self.action[idx], self.ret[idx])

    def arrays(self) -> Batch:
        """Every decision at once (about 2.2 KB each unpacked: mind the size)."""
        return self.batch(np.arange(len(self)))

    def batches(
        self, batch_size: int, *, shuffle: bool = True, seed: int = 0, drop_last: bool = False
    ) -> Iterator[Batch]:
        """One pass over the decisions in batches of ``batch_size`` (the last one smaller
        unless ``drop_last``), in an order shuffled by ``seed`` (the same for the same seed),
        or in reading order without ``shuffle``."""
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        n = len(self)
        order = np.random.default_rng(seed).permutation(n) if shuffle else np.arange(n)
        stop = n - n % batch_size if drop_last else n
        for start in range(0, stop, batch_size):
            yield self.batch(order[start : start + batch_size])

    def split(self, fraction: float, seed: int = 0) -> tuple[DecisionSet, DecisionSet]:
        """Two sets of whole deals: about ``fraction`` of the deals (chosen by ``seed``) in
        the second (for validation), the rest in the first."""
        if not 0.0 <= fraction <= 1.0:
            raise ValueError(f"fraction must be in [0, 1], got {fraction}")
        held = np.random.default_rng(seed).random(self.deals) < fraction
        rows = held[self.deal]
        return self._take(~rows, ~held), self._take(rows, held)

    def _take(self, rows: npt.NDArray[np.bool_], deals: npt.NDArray[np.bool_]) -> DecisionSet:
        renumber = np.cumsum(deals) - 1
        return DecisionSet(
            self.obs_bits[rows],
            self.obs_reals[rows],
            self.mask_bits[rows],
            self.action[rows],
            self.ret[rows],
            self.seat[rows],
            renumber[self.deal[rows]].astype(np.int32),
            [w for w, keep in zip(self.where, deals, strict=True) if keep],
        )


def load_dataset(
    source: str | Path | Iterable[tuple[str, Mapping[str, Any]]],
    *,
    max_deals: int | None = None,
    forced: bool = True,
) -> DecisionSet:
    """Read and check a dataset (a path as :func:`dataset_files` takes, or ``(where,
    record)`` pairs) into a :class:`DecisionSet`. ``max_deals`` stops after that many deals;
    ``forced=False`` leaves out the decisions with a single allowed action (the environments
    still ask them, but there is nothing to learn from them)."""
    records = read_records(source) if isinstance(source, str | Path) else source
    bits: list[npt.NDArray[np.uint8]] = []
    reals: list[npt.NDArray[np.float32]] = []
    masks: list[bytes] = []
    action: list[int] = []
    ret: list[float] = []
    seat: list[int] = []
    deal: list[int] = []
    where: list[str] = []
    for place, record in records:
        if max_deals is not None and len(where) >= max_deals:
            break
        obs_rows: list[npt.NDArray[np.float32]] = []
        first = len(where)
        for d, s, obs, mask, a, r in _replay(record, place):
            if not forced and mask & (mask - 1) == 0:
                continue
            obs_rows.append(obs)
            masks.append(mask.to_bytes(_MASK_BYTES, "little"))
            action.append(a)
            ret.append(r)
            seat.append(s)
            deal.append(first + d)
        where.extend(f"{place}, deal {i}" for i in range(1, len(record["deals"]) + 1))
        if obs_rows:
            block = np.stack(obs_rows)
            binary = block[:, _BIN_IDX]
            if not np.isin(binary, (0.0, 1.0)).all():  # the packing keeps 0/1 entries only
                raise DatasetError(f"{place}: an observation entry outside 0/1 (a bug)")
            bits.append(np.packbits(binary.astype(np.uint8), axis=1, bitorder="little"))
            reals.append(block[:, _REAL_IDX])
    n = len(action)
    return DecisionSet(
        np.concatenate(bits) if bits else np.zeros((0, _BIN_BYTES), np.uint8),
        np.concatenate(reals) if reals else np.zeros((0, len(_REAL_IDX)), np.float32),
        np.frombuffer(b"".join(masks), np.uint8).reshape(n, _MASK_BYTES).copy(),
        np.array(action, np.int64),
        np.array(ret, np.float32),
        np.array(seat, np.int8),
        np.array(deal, np.int32),
        where,
    )

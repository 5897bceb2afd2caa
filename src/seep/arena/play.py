"""Playing the arena's games: bot specs, the match configuration, one duplicate pair.

Everything a worker needs travels in a :class:`MatchConfig` (plain, picklable data: bot names
and settings, never bot objects), and every random choice is derived from the run seed, so a
duplicate pair's result is a pure function of ``(config, pair index)``: it does not matter
which process plays it, or in which order.

Derived seeds (strings hashed by :class:`random.Random`, so they are the same in every
process whatever ``PYTHONHASHSEED`` is):

* shuffle of deal ``k`` of pair ``i``: ``"seep-arena-deal:{seed}:{i}:{k}"`` (the same for both
  seatings, so both see the same cards);
* first dealer of pair ``i``: ``"seep-arena-dealer:{seed}:{i}"`` (the same for both seatings);
* the bot on ``seat`` in deal ``k`` of pair ``i`` with ``seating``:
  ``"seep-arena-bot:{seed}:{i}:{k}:{seating}:{seat}"`` (its own :class:`random.Random`).

Seating 0 puts the first bot (A) on seats 0 and 2 (team 0), seating 1 on seats 1 and 3.
"""

from __future__ import annotations

import importlib
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..bots import Bot
from ..codes import CAPTURE, REDEAL, code_action, code_houses, code_loose
from ..errors import SeepError
from ..moves import Move
from ..options import Rules
from ..session import Session
from ..view import View

__all__ = [
    "ArenaError",
    "BotError",
    "BotSpec",
    "GameResult",
    "MatchConfig",
    "RunError",
    "play_game",
    "play_pair",
    "run_chunk",
]

MODES = ("deals", "baazis")


class ArenaError(SeepError):
    """A bad arena setting (unknown bot, odd number of deals, bad rules...)."""


class RunError(ArenaError):
    """The run failed once started (a bot's fault, a worker process that died)."""


class BotError(RunError):
    """A bot broke the rules during play (an illegal move) or refused to move."""


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A bot by registered name or difficulty preset, with settings for :func:`make_bot`.

    The text form is ``name`` or ``name:key=value,key=value``; values are read as JSON when
    they parse (``200``, ``0.5``, ``true``) and as strings otherwise.

    >>> BotSpec.parse("ismcts:iterations=200,exploration=0.7")
    BotSpec(name='ismcts', settings=(('exploration', 0.7), ('iterations', 200)))
    >>> BotSpec.parse("ismcts:iterations=200").label
    'ismcts:iterations=200'
    """

    name: str
    settings: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def parse(cls, text: str | BotSpec) -> BotSpec:
        """A spec from its text form (a spec is returned as it is)."""
        if isinstance(text, BotSpec):
            return text
        name, _, rest = text.partition(":")
        name = name.strip()
        if not name:
            raise ArenaError(f"bot spec {text!r} has no bot name")
        settings: dict[str, Any] = {}
        for item in filter(None, (p.strip() for p in rest.split(","))):
            key, eq, raw = item.partition("=")
            if not eq or not key.strip():
                raise ArenaError(f"bot spec {text!r}: setting {item!r} is not key=value")
            try:
                value: Any = json.loads(raw)
            except ValueError:
                value = raw
            settings[key.strip()] = value
        return cls(name, tuple(sorted(settings.items())))

    @property
    def label(self) -> str:
        """The text form, used to name the bot in results."""
        if not self.settings:
            return self.name
        return self.name + ":" + ",".join(f"{k}={json.dumps(v)}" for k, v in self.settings)

    def make(self) -> Bot:
        """A fresh bot (raises :class:`~seep.errors.SeepError` for an unknown name)."""
        from .frozen import make_arena_bot  # measuring instruments, never in the registry

        return make_arena_bot(self.name, **dict(self.settings))


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """What to play: two bots, the rules, the run seed, and ``pairs`` duplicate pairs.

    In ``"deals"`` mode a pair is one shuffle played twice (2 deals); in ``"baazis"`` mode it
    is one baazi played twice (R45, R46), deal after deal until a team wins it, both seatings
    using the same sequence of shuffles. ``max_deals`` stops a baazi that has not ended after
    that many deals (it is then reported as unfinished). ``plugins`` are modules imported in
    every worker before a bot is made: where bots registered outside :mod:`seep` live.
    ``records`` keeps a docs/format.md game record of every game.
    """

    bots: tuple[BotSpec, BotSpec]
    rules: Rules = field(default_factory=Rules)
    seed: int = 0
    mode: str = "deals"
    pairs: int = 1
    max_deals: int = 1000
    plugins: tuple[str, ...] = ()
    records: bool = False

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ArenaError(f"mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        if self.pairs < 1:
            raise ArenaError(f"at least one duplicate pair is needed, got {self.pairs}")
        if self.max_deals < 1:
            raise ArenaError(f"max_deals must be positive, got {self.max_deals}")


@dataclass(frozen=True, slots=True)
class GameResult:
    """One seating of one duplicate pair: a deal, or a baazi of several deals.

    Pairs of numbers are (bot A's team, bot B's team). ``seconds`` (time spent in the bots'
    ``choose``) is the only field that is not reproducible, and equality ignores it.
    """

    pair: int
    seating: int
    deals: int
    diffs: tuple[int, ...]  # per deal: A's team's deal score minus B's
    score: tuple[int, int]  # summed deal scores
    sweeps: tuple[int, int]  # number of sweeps (R37), last-play ones included
    sweep_points: tuple[int, int]
    under_min: tuple[int, int]  # deals in which the team scored under min_score (R46)
    redeals: int
    baazi_winner: int | None  # 0 = A, 1 = B, None (deals mode, or unfinished)
    moves: tuple[int, int]
    # Timing is left out of equality: two plays of the same game are equal results.
    seconds: tuple[float, float] = field(compare=False)
    record: dict[str, Any] | None = None


def _derived(text: str) -> int:
    """A 62-bit seed derived from ``text``, the same in every process."""
    return random.Random(text).randrange(1 << 62)


def first_dealer(seed: int, pair: int, players: int = 4) -> int:
    """The first dealer of a pair (the same in both seatings; R8: chosen at random)."""
    return random.Random(f"seep-arena-dealer:{seed}:{pair}").randrange(players)


def deal_seed(seed: int, pair: int, deal: int) -> int:
    """The shuffle seed of deal ``deal`` (0, 1, ...) of a pair, the same in both seatings."""
    return _derived(f"seep-arena-deal:{seed}:{pair}:{deal}")


def bot_rng(seed: int, pair: int, deal: int, seating: int, seat: int) -> random.Random:
    """The random source of the bot on ``seat`` in one deal of one seating."""
    return random.Random(f"seep-arena-bot:{seed}:{pair}:{deal}:{seating}:{seat}")


def load_plugins(modules: Sequence[str]) -> None:
    """Import the modules that register extra bots (a no-op for ones already imported)."""
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise ArenaError(f"cannot import bot plugin {name!r}: {exc}") from None


def play_game(config: MatchConfig, pair: int, seating: int) -> GameResult:
    """Play one seating of one duplicate pair and return its tally.

    Every seat gets its own bot object (partners share nothing but what the table shows), made
    afresh for the game, so a bot that keeps state between calls still cannot make the result
    depend on how the pairs are split among workers. Each bot is called with its seat's
    :class:`~seep.view.View` only.
    """
    specs = config.bots
    players = config.rules.players
    # seating 0: A is team 0 (seats 0, 2; with two players seat 0); seating 1: A is team 1
    # (seats 1, 3; with two players seat 1): the seats swapped, the same cards dealt.
    a_team = seating
    side = [0 if (seat & 1) == a_team else 1 for seat in range(players)]  # 0 = A, 1 = B
    try:
        bots = [specs[side[seat]].make() for seat in range(players)]
    except SeepError as exc:
        # The bots were made once in the main process before any work started, so a failure
        # here means a worker process lacks a bot registered at run time.
        raise ArenaError(
            f"{exc} (in a worker process: a bot registered at run time must be registered "
            "by a module named in plugins, --plugin MODULE)"
        ) from None
    rules = config.rules
    seed = config.seed
    baazis = config.mode == "baazis"
    session = Session(
        rules,
        seed=seed,
        dealer=first_dealer(seed, pair, players),
        # A baazi ends the game, or max_deals deals without one (reported as unfinished).
        deals=config.max_deals if baazis else 1,
        baazis=1 if baazis else None,
        deal_seeds=lambda k: deal_seed(seed, pair, k),
    )

    diffs: list[int] = []
    score = [0, 0]
    sweeps = [0, 0]
    sweep_points = [0, 0]
    under = [0, 0]
    moves = [0, 0]
    seconds = [0.0, 0.0]
    redeals = 0
    winner: int | None = None
    clock = time.perf_counter

    while True:
        deal = session.deal_number - 1
        rngs = [bot_rng(seed, pair, deal, seating, s) for s in range(players)]
        while not session.deal_over:
            pos = session.position
            seat = pos.to_move
            assert seat is not None
            view = View.from_position(pos, seat, session.history)
            t0 = clock()
            bot = bots[seat]
            try:
                if getattr(bot, "sees_all", False):  # the oracle (seep.arena.oracle)
                    decision = bot.choose_seeing(pos.copy(), view, rngs[seat])  # type: ignore[attr-defined]
                else:
                    decision = bot.choose(view, rngs[seat])
            except Exception as exc:
                where = (
                    f"bot {specs[side[seat]].label!r} on seat {seat} (arena seed {seed}, "
                    f"pair {pair}, seating {seating}, deal {deal}, {pos.plays} of 48 plays made)"
                )
                if isinstance(exc, SeepError):  # the bot refused to move: a bot error
                    raise BotError(f"{where} failed: {exc}") from exc
                # A crash: keep the bot's own traceback, and say where to find the position.
                exc.add_note(f"in {where}")
                raise
            seconds[side[seat]] += clock() - t0
            code = int(decision.move)
            try:
                session.verify(code)
            except SeepError:
                raise BotError(
                    f"bot {specs[side[seat]].label!r} on seat {seat} chose an illegal move "
                    f"{_describe(code)} (seed {seed}, pair {pair}, seating {seating}, "
                    f"deal {deal}, {pos.plays} of 48 plays made)"
                ) from None
            action = code_action(code)
            if (
                action == CAPTURE
                and code_loose(code) == pos.loose
                and code_houses(code) << 9 == pos.hpresent
            ):
                # R37: the capture takes the whole floor. Checked before the move because
                # after play 48 the leftovers are collected (R40) and the floor is empty anyway.
                sweeps[side[seat]] += 1
            elif action == REDEAL:
                redeals += 1
            moves[side[seat]] += 1
            session.play(code)  # checked above: not checked again
        pos = session.position
        outcome = session.outcome()
        assert outcome is not None
        scores = outcome.result["score"]
        a_score, b_score = scores[a_team], scores[1 - a_team]
        diffs.append(a_score - b_score)
        score[0] += a_score
        score[1] += b_score
        sweep_points[0] += pos.sweeps[a_team]
        sweep_points[1] += pos.sweeps[1 - a_team]
        under[0] += outcome.under_min[a_team]  # R46 as the match applies it
        under[1] += outcome.under_min[1 - a_team]
        if session.match_over:
            if baazis and outcome.winner is not None:
                winner = 0 if outcome.winner == a_team else 1
            break
        session.start_next_deal()
    deal = session.deal_number

    record = None
    if config.records:
        labels = [specs[side[s]].label for s in range(players)]
        full = session.to_record()
        record = {
            "format": full["format"],
            "rules": full["rules"],
            "seed": full["seed"],
            "arena": {"pair": pair, "seating": seating, "seats": labels},
            "deals": full["deals"],
        }
    return GameResult(
        pair=pair,
        seating=seating,
        deals=deal,
        diffs=tuple(diffs),
        score=(score[0], score[1]),
        sweeps=(sweeps[0], sweeps[1]),
        sweep_points=(sweep_points[0], sweep_points[1]),
        under_min=(under[0], under[1]),
        redeals=redeals,
        baazi_winner=winner,
        moves=(moves[0], moves[1]),
        seconds=(seconds[0], seconds[1]),
        record=record,
    )


def _describe(code: int) -> str:
    try:
        return repr(str(Move(code)))
    except (SeepError, ValueError):
        return f"code {code:#x}"


def play_pair(config: MatchConfig, pair: int) -> tuple[GameResult, GameResult]:
    """Both seatings of duplicate pair ``pair``."""
    return play_game(config, pair, 0), play_game(config, pair, 1)


def run_chunk(job: tuple[int, MatchConfig, int, int]) -> tuple[int, list[GameResult]]:
    """Play pairs ``start .. stop - 1`` of a config: the unit of work of every backend.

    ``job`` is ``(job id, config, start, stop)``; the id comes back so results that arrive
    out of order can be put back in order.
    """
    job_id, config, start, stop = job
    load_plugins(config.plugins)
    out: list[GameResult] = []
    for pair in range(start, stop):
        out.extend(play_pair(config, pair))
    return job_id, out

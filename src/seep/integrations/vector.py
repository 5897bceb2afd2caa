"""Batched environments: N deals stepped together (needs ``gymnasium`` and ``numpy``, extra
``seep-game[pettingzoo]``).

Two classes, both following ``gymnasium.vector.VectorEnv``'s conventions (batched arrays,
``MultiDiscrete`` actions, next-step autoreset: the step after an episode ends resets that
game and answers its first observation with reward 0):

* :class:`SeepVectorEnv`: N copies of ``Seep-v0`` (one learning seat against bots).
* :class:`SeepSelfPlayVectorEnv`: N deals in which all four seats learn, for PettingZoo's AEC
  users: each step takes the action of the agent to move in each game (``info["agent"]``), and
  rewards come per seat, shape ``(N, players)`` (every seat gets its team's deal score difference
  when its deal ends, as :class:`~seep.integrations.pettingzoo.SeepAECEnv` gives).

Both write observations into preallocated arrays: ``obs["observation"]`` float32 ``(N, 504)``
and ``obs["action_mask"]`` int8 ``(N, 133)``; the mask is also ``info["action_mask"]`` and
:meth:`action_masks` (sb3-contrib's ``MaskablePPO`` convention). An action outside the mask
changes nothing and gets ``illegal_reward``; ``max_illegal`` of them in a row truncate the
episode. The observation that ends an episode allows every action: the next step, whatever
its action, only resets that game. The action space of :mod:`seep.integrations.actions`
makes each move one to a few steps, so an episode (one deal) is about 17 steps of the
learning seat, 67 of all four.

>>> envs = SeepVectorEnv(num_envs=4)
>>> obs, info = envs.reset(seed=1)
>>> obs["observation"].shape, obs["action_mask"].shape, info["action_mask"].shape
((4, 504), (4, 133), (4, 133))
>>> actions = [int(np.flatnonzero(m)[0]) for m in envs.action_masks()]
>>> obs, rewards, terminated, truncated, info = envs.step(np.array(actions))
>>> rewards.shape, terminated.dtype
((4,), dtype('bool'))
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..bots import Bot, make_bot
from ..bots.base import RandomBot
from ..engine import Position
from ..options import Rules
from ..session import Session
from ..view import View
from .actions import NUM_ACTIONS, MoveBuilder
from .features import OBS_SIZE, observation

__all__ = ["SeepSelfPlayVectorEnv", "SeepVectorEnv"]

Obs = dict[str, Any]
Arr = np.ndarray[Any, Any]
_MASK_BYTES = (NUM_ACTIONS + 7) // 8


def _single_spaces() -> tuple[spaces.Dict, spaces.Discrete]:
    obs = spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        }
    )
    return obs, spaces.Discrete(NUM_ACTIONS)


def _mover(session: Session) -> int:
    seat = session.to_move
    assert seat is not None  # only asked while the deal runs
    return seat


class _Game:
    """One deal of a batch: the session, the move being built, the seats' random sources."""

    __slots__ = ("builder", "illegal", "rng", "seat_rngs", "session", "steps")

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.seat_rngs = [random.Random(f"{seed}:{s}") for s in range(4)]  # 2 used at two
        self.session = Session(deals=1)
        self.builder = MoveBuilder()
        self.illegal = 0
        self.steps = 0

    def deal(self, rules: Rules) -> None:
        rng = self.rng
        dealer = rng.randrange(rules.players)
        self.session = Session(start=Position.new_deal(rng.getrandbits(62), dealer, rules), deals=1)
        self.illegal = 0
        self.steps = 0


class _Batch(VectorEnv[Obs, Any, Any]):
    """What both batched environments share: the games, the arrays, masks and autoreset."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int,
        rules: str | dict[str, Any] | Rules,
        reward_scale: float,
        illegal_reward: float,
        max_illegal: int,
    ) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
        if max_illegal < 1:
            raise ValueError(f"max_illegal must be >= 1, got {max_illegal!r}")
        self.num_envs = num_envs
        self.rules = Rules.parse(rules)
        self.reward_scale = reward_scale
        self.illegal_reward = illegal_reward
        self.max_illegal = max_illegal
        self.single_observation_space, self.single_action_space = _single_spaces()
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.games = [_Game(i) for i in range(num_envs)]
        self._obs = np.zeros((num_envs, OBS_SIZE), np.float32)
        self._mask = np.zeros((num_envs, NUM_ACTIONS), np.int8)
        self._bits = np.zeros((num_envs, _MASK_BYTES), np.uint8)
        self._autoreset = np.zeros(num_envs, np.bool_)

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """Deal a new deal in every game; ``seed`` (an int: game i gets ``seed + i``, or one
        seed per game) fixes every shuffle, dealer and bot choice."""
        if seed is None:
            seeds = [random.getrandbits(62) for _ in range(self.num_envs)]
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        else:
            if len(seed) != self.num_envs:
                raise ValueError(f"{len(seed)} seeds for {self.num_envs} games")
            seeds = list(seed)
        self.games = [_Game(s) for s in seeds]
        for i in range(self.num_envs):
            self._new_episode(i)
        self._autoreset[:] = False
        return self._observe(), self._info()

    def action_masks(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """The legal sub-decisions of each game, bool ``(N, 133)`` (sb3-contrib convention)."""
        return self._mask.astype(np.bool_)

    # --- what the subclasses define -------------------------------------------------------

    def _new_episode(self, i: int) -> None:
        raise NotImplementedError

    def _seat(self, i: int) -> int:
        """The seat whose observation game ``i`` shows."""
        raise NotImplementedError

    # --- shared ----------------------------------------------------------------------------

    def _ready(self, i: int) -> None:
        """Game ``i`` waits for a move of the seat it observes: offer its legal moves."""
        g = self.games[i]
        g.builder.reset(g.session.position.legal_codes())

    def _observe(self) -> Obs:
        bits = self._bits
        for i, g in enumerate(self.games):
            pos = g.session.position
            observation(View.from_position(pos, self._seat(i)), g.builder, self._obs[i])
            bits[i] = np.frombuffer(g.builder.mask().to_bytes(_MASK_BYTES, "little"), np.uint8)
        self._mask[:] = np.unpackbits(bits, axis=1, count=NUM_ACTIONS, bitorder="little")
        # A finished deal waits for the autoreset step, which ignores its action: every action
        # is allowed there, so that a masked policy never meets an empty mask.
        self._mask[~self._mask.any(axis=1)] = 1
        return {"observation": self._obs, "action_mask": self._mask}

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask}

    def _take(self, i: int, action: int) -> tuple[bool, bool]:
        """Apply the learning seat's sub-decision in game ``i``: (legal, move made)."""
        g = self.games[i]
        g.steps += 1
        if not (g.builder.mask() >> action) & 1:
            g.illegal += 1
            return False, False
        g.illegal = 0
        code = g.builder.apply(action)
        if code is None:
            return True, False
        g.session.play_legal(code)  # from the builder, made of legal_codes()
        return True, True

    def close_extras(self, **kwargs: Any) -> None:
        self.games = []


class SeepVectorEnv(_Batch):
    """N games of one learning seat against three bots, stepped together (``Seep-v0``
    batched; see the module docstring). ``opponents`` and ``partner`` as for
    :class:`~seep.integrations.gymnasium.SeepEnv`; the ``random`` bot is played inline."""

    def __init__(
        self,
        num_envs: int = 8,
        seat: int = 0,
        opponents: str | Bot = "random",
        partner: str | Bot = "random",
        rules: str | dict[str, Any] | Rules = "standard",
        reward_scale: float = 1.0,
        illegal_reward: float = -1.0,
        max_illegal: int = 100,
    ) -> None:
        n = Rules.parse(rules).players
        if not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, got {seat!r}")
        self.seat = seat
        opp = make_bot(opponents) if isinstance(opponents, str) else opponents
        par = make_bot(partner) if isinstance(partner, str) else partner
        # Two players (docs/rules.md §12): one opponent, no partner.
        self.bots: dict[int, Bot] = (
            {(seat + 1) & 3: opp, (seat + 2) & 3: par, (seat + 3) & 3: opp}
            if n == 4
            else {1 - seat: opp}
        )
        super().__init__(num_envs, rules, reward_scale, illegal_reward, max_illegal)

    def _seat(self, i: int) -> int:
        return self.seat

    def _new_episode(self, i: int) -> None:
        g = self.games[i]
        g.deal(self.rules)
        self._bots_play(i)

    def _bots_play(self, i: int) -> None:
        g = self.games[i]
        session = g.session
        while not session.deal_over and session.to_move != self.seat:
            seat = session.to_move
            assert seat is not None
            bot = self.bots[seat]
            rng = g.seat_rngs[seat]
            if type(bot) is RandomBot:  # what RandomBot does, without building a View
                session.play_legal(rng.choice(session.position.legal_codes()))
            else:
                view = View.from_position(session.position, seat, session.history)
                session.play(int(bot.choose(view, rng).move))  # checked
        if session.deal_over:
            g.builder.reset(())
        else:
            self._ready(i)

    def step(
        self, actions: Any
    ) -> tuple[
        Obs, np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any], dict[str, Any]
    ]:
        acts = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        rewards = np.zeros(self.num_envs, np.float64)
        terminated = np.zeros(self.num_envs, np.bool_)
        truncated = np.zeros(self.num_envs, np.bool_)
        team = self.seat & 1
        for i, g in enumerate(self.games):
            if self._autoreset[i]:
                self._new_episode(i)
                continue
            legal, made = self._take(i, int(acts[i]))
            if not legal:
                rewards[i] = self.illegal_reward
                truncated[i] = g.illegal >= self.max_illegal
                continue
            if made:
                self._bots_play(i)
            if g.session.deal_over:
                s = g.session.position.deal_scores()
                rewards[i] = (s[team] - s[1 - team]) * self.reward_scale
                terminated[i] = True
        self._autoreset = terminated | truncated
        return self._observe(), rewards, terminated, truncated, self._info()


class SeepSelfPlayVectorEnv(_Batch):
    """N deals in which every seat is an agent (PettingZoo's AEC turn order, batched; see
    the module docstring). ``info["agent"]`` is the seat to act in each game; rewards have
    shape ``(N, players)``, one column per seat (four, or two under ``players=2``)."""

    def __init__(
        self,
        num_envs: int = 8,
        rules: str | dict[str, Any] | Rules = "standard",
        reward_scale: float = 1.0,
        illegal_reward: float = -1.0,
        max_illegal: int = 100,
    ) -> None:
        super().__init__(num_envs, rules, reward_scale, illegal_reward, max_illegal)
        self._agent = np.zeros(num_envs, np.int64)

    def _seat(self, i: int) -> int:
        return int(self._agent[i])

    def _new_episode(self, i: int) -> None:
        g = self.games[i]
        g.deal(self.rules)
        self._ready(i)
        self._agent[i] = _mover(g.session)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask, "agent": self._agent.copy()}

    def step(
        self, actions: Any
    ) -> tuple[
        Obs, np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any], dict[str, Any]
    ]:
        acts = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        n = self.rules.players
        rewards = np.zeros((self.num_envs, n), np.float64)
        terminated = np.zeros(self.num_envs, np.bool_)
        truncated = np.zeros(self.num_envs, np.bool_)
        for i, g in enumerate(self.games):
            if self._autoreset[i]:
                self._new_episode(i)
                continue
            legal, made = self._take(i, int(acts[i]))
            if not legal:
                rewards[i, self._agent[i]] = self.illegal_reward
                truncated[i] = g.illegal >= self.max_illegal
                continue
            if not made:
                continue
            session = g.session
            if session.deal_over:
                s = session.position.deal_scores()
                d = (s[0] - s[1]) * self.reward_scale
                rewards[i] = (d, -d, d, -d) if n == 4 else (d, -d)
                terminated[i] = True
                g.builder.reset(())
            else:
                self._ready(i)
                self._agent[i] = _mover(session)
        self._autoreset = terminated | truncated
        return self._observe(), rewards, terminated, truncated, self._info()

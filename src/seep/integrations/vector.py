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
from ..codes import PHASE_OVER
from ..errors import IllegalMoveError
from ..options import Rules
from ..verify import verify_move
from ..view import View
from .actions import NUM_ACTIONS
from .features import OBS_SIZE, ObservationBatch
from .hotpath import Game as _Game
from .hotpath import bots_play, games_ints, step_against_bots

__all__ = ["SeepSelfPlayVectorEnv", "SeepVectorEnv"]

Obs = dict[str, Any]
Arr = np.ndarray[Any, Any]


def _single_spaces() -> tuple[spaces.Dict, spaces.Discrete]:
    obs = spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        }
    )
    return obs, spaces.Discrete(NUM_ACTIONS)


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
        self._batch = ObservationBatch(num_envs)
        self._obs = self._batch.obs
        self._mask = self._batch.mask
        self._autoreset = [False] * num_envs

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
        self._autoreset = [False] * self.num_envs
        return self._observe(), self._info()

    def action_masks(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """The legal sub-decisions of each game, bool ``(N, 133)`` (sb3-contrib convention)."""
        return self._mask.astype(np.bool_)

    # --- what the subclasses define -------------------------------------------------------

    def _new_episode(self, i: int) -> None:
        raise NotImplementedError

    def _seats(self) -> list[int]:
        """The seat whose observation each game shows."""
        raise NotImplementedError

    # --- shared ----------------------------------------------------------------------------

    def _observe(self) -> Obs:
        games = self.games
        # A finished deal waits for the autoreset step, which ignores its action: every
        # action is allowed there (games_ints), so a masked policy never meets an empty mask.
        batch = self._batch
        games_ints(games, self._seats(), batch.ints)
        batch.write_ints(self.rules.players, self.rules.baazi_lead)
        return {"observation": self._obs, "action_mask": self._mask}

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask}

    def _take(self, g: _Game, action: int) -> tuple[bool, int | None]:
        """Apply the learning seat's sub-decision in game ``g``: (legal, the move's code once
        it is made)."""
        g.steps += 1
        b = g.builder
        if action < 0 or not b.mask() >> action & 1:
            g.illegal += 1
            return False, None
        g.illegal = 0
        code = b.apply(action)
        if code is not None:
            g.pos.advance(code)  # from the builder, made of legal_codes()
        return True, code

    def close_extras(self, **kwargs: Any) -> None:
        self.games = []


class SeepVectorEnv(_Batch):
    """N games of one learning seat against three bots, stepped together (``Seep-v0``
    batched; see the module docstring). ``opponents`` and ``partner`` as for
    :class:`~seep.integrations.gymnasium.SeepEnv`; the ``random`` bot is played inline (the
    same choice from the same random source, without building a view)."""

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
        parsed = Rules.parse(rules)
        n = parsed.players
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
        # RandomBot picks among its view's legal moves, which are the position's own except
        # under add_retention "team" (a permission resting on the partner's hidden card):
        # there it gets its view like any other bot.
        blind = parsed.add_retention != "team" or n == 2
        inline = [type(self.bots.get(s)) is RandomBot and blind for s in range(4)]
        self._stop = [not x for x in inline]  # play_random stops at the others' turns
        self._keep_history = not all(inline[s] for s in self.bots)
        super().__init__(num_envs, parsed, reward_scale, illegal_reward, max_illegal)

    def _seats(self) -> list[int]:
        return [self.seat] * self.num_envs

    def _new_episode(self, i: int) -> None:
        g = self.games[i]
        g.deal(self.rules)
        bots_play(g, self.seat, self._stop, self._keep_history, self._bot_move)

    def _bot_move(self, g: _Game, seat: int) -> None:
        """The move of a bot that is not played inline, chosen from its view."""
        pos = g.pos
        view = View.from_position(pos, seat, g.history)
        code = int(self.bots[seat].choose(view, g.seat_rngs[seat]).move)
        if not pos.is_legal(code):
            verify_move(pos, code)  # raises with the reason
            raise IllegalMoveError(f"{code:#x} is not a legal move here")
        pos.advance(code)
        g.history.append((seat, code))

    def step(
        self, actions: Any
    ) -> tuple[
        Obs, np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any], dict[str, Any]
    ]:
        n = self.num_envs
        acts: list[int] = np.asarray(actions, dtype=np.int64).reshape(n).tolist()
        # The loop over the games is compiled (seep.integrations.hotpath).
        rewards, terminated, truncated, self._autoreset = step_against_bots(
            self.games,
            acts,
            self._autoreset,
            self.seat,
            self._stop,
            self._keep_history,
            self._bot_move,
            self.rules,
            self.illegal_reward,
            self.max_illegal,
            self.reward_scale,
        )
        return (
            self._observe(),
            np.array(rewards, np.float64),
            np.array(terminated, np.bool_),
            np.array(truncated, np.bool_),
            self._info(),
        )


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
        self._agents = [0] * num_envs if isinstance(num_envs, int) and num_envs > 0 else []
        super().__init__(num_envs, rules, reward_scale, illegal_reward, max_illegal)

    def _seats(self) -> list[int]:
        return self._agents

    def _new_episode(self, i: int) -> None:
        g = self.games[i]
        g.deal(self.rules)
        pos = g.pos
        g.builder.reset(pos.legal_codes())
        seat = pos.to_move
        assert seat is not None
        self._agents[i] = seat

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask, "agent": np.array(self._agents, np.int64)}

    def step(
        self, actions: Any
    ) -> tuple[
        Obs, np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any], dict[str, Any]
    ]:
        num = self.num_envs
        acts: list[int] = np.asarray(actions, dtype=np.int64).reshape(num).tolist()
        n = self.rules.players
        rewards = np.zeros((num, n), np.float64)
        terminated = [False] * num
        truncated = [False] * num
        autoreset = self._autoreset
        agents = self._agents
        for i, g in enumerate(self.games):
            if autoreset[i]:
                self._new_episode(i)
                continue
            legal, code = self._take(g, acts[i])
            if not legal:
                rewards[i, agents[i]] = self.illegal_reward
                truncated[i] = g.illegal >= self.max_illegal
                continue
            if code is None:
                continue
            pos = g.pos
            if pos.phase_id == PHASE_OVER:
                s = pos.deal_scores()
                d = (s[0] - s[1]) * self.reward_scale
                rewards[i] = (d, -d, d, -d) if n == 4 else (d, -d)
                terminated[i] = True
                g.builder.reset(())
            else:
                g.builder.reset(pos.legal_codes())
                seat = pos.to_move
                assert seat is not None
                agents[i] = seat
        self._autoreset = [t or u for t, u in zip(terminated, truncated, strict=True)]
        return (
            self._observe(),
            rewards,
            np.array(terminated, np.bool_),
            np.array(truncated, np.bool_),
            self._info(),
        )

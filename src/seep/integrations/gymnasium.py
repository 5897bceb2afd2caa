"""Gymnasium: one seat of Seep against bots from :mod:`seep.bots` (needs ``gymnasium``,
``numpy``; both come with the extra ``seep-game[pettingzoo]``).

The agent plays seat ``seat`` (default 0); its partner and the two opponents are bots, each
with its own seeded random source and shown only its own :class:`~seep.view.View`. With the
rules ``two_player`` (docs/rules.md §12) it plays seat 0 or 1 against one bot, ``opponents``
(``SeepEnv(rules="two_player", opponents="heuristic")``). The
spaces are those of the PettingZoo environment: ``Discrete(133)`` sub-decisions
(:mod:`seep.integrations.actions`) and a dict observation with the 504-value ``observation``
and the ``action_mask``. An episode is one deal; the reward at its end is the agent's team's
deal score minus the other team's (R42), times ``reward_scale``.

The mask of legal sub-decisions is in the observation, in ``info["action_mask"]`` (at reset
and every step) and from :meth:`SeepEnv.action_masks` (sb3-contrib's ``MaskablePPO``
convention). ``gymnasium.make("Seep-v0")`` wraps the environment (its checker, its order
check), and Gymnasium's wrappers do not pass attributes through, so the registration adds
:class:`ActionMasks` outermost: ``env.action_masks()`` works on what ``make`` returns. Under
wrappers of your own, ask ``env.get_wrapper_attr("action_masks")()``, as sb3-contrib's
``get_action_masks`` does. An action outside the mask changes nothing and is answered with
``illegal_reward`` and ``info["illegal"] = True`` (Gymnasium's checker and mask-unaware agents
send any action of the space); mask-aware agents never see it. ``max_illegal`` illegal
actions in a row (default 100), or ``max_steps`` steps in the episode (default 1,000; a deal
takes about 17), end the episode as *truncated*.

The environment is registered as ``Seep-v0``: ``gymnasium.make("Seep-v0", opponents="greedy")``
once this module is imported, or without importing it first:
``gymnasium.make("seep.integrations.gymnasium:Seep-v0")``. Many games at once:
:class:`seep.integrations.vector.SeepVectorEnv`.

>>> env = SeepEnv(opponents="greedy")
>>> obs, info = env.reset(seed=3)
>>> obs["observation"].shape, bool(obs["action_mask"].any())
((504,), True)
>>> made = gym.make("Seep-v0", opponents="greedy")
>>> _ = made.reset(seed=3)
>>> made.action_masks().shape
(133,)
"""

from __future__ import annotations

import random
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import WrapperSpec
from gymnasium.utils import RecordConstructorArgs

from ..bots import Bot, make_bot
from ..bots.base import RandomBot
from ..engine import Position
from ..options import Rules
from ..session import Session
from ..view import View
from .actions import NUM_ACTIONS, MoveBuilder
from .features import OBS_SIZE, mask_array, position_observation
from .render import env_render

__all__ = ["ActionMasks", "SeepEnv"]

Obs = dict[str, Any]


class SeepEnv(gym.Env[Obs, int]):
    """One seat against three bots (see the module docstring).

    ``opponents`` names the bot of both opponents and ``partner`` the partner's (any name or
    difficulty of :func:`seep.bots.make_bot`, or a bot object).
    """

    # render_fps: the pace of "human" rendering (Gymnasium's wrappers read it).
    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        seat: int = 0,
        opponents: str | Bot = "random",
        partner: str | Bot = "random",
        rules: str | dict[str, Any] | Rules = "standard",
        reward_scale: float = 1.0,
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        max_illegal: int = 100,
        max_steps: int = 1000,
    ) -> None:
        parsed = Rules.parse(rules)
        n = parsed.players
        if not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, got {seat!r}")
        if max_illegal < 1 or max_steps < 1:
            raise ValueError("max_illegal and max_steps must be >= 1")
        self.max_illegal = max_illegal
        self.max_steps = max_steps
        self._illegal = 0
        self._steps = 0
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        self.seat = seat
        self.rules = parsed
        self.reward_scale = reward_scale
        self.illegal_reward = illegal_reward
        self.render_mode = render_mode
        opp = make_bot(opponents) if isinstance(opponents, str) else opponents
        par = make_bot(partner) if isinstance(partner, str) else partner
        if n == 2:
            # Two players (docs/rules.md §12): one opponent, no partner.
            self.bots: dict[int, Bot] = {1 - seat: opp}
        else:
            self.bots = {(seat + 1) & 3: opp, (seat + 2) & 3: par, (seat + 3) & 3: opp}
        # RandomBot chooses among its view's legal moves: the position's own, except under
        # add_retention "team" (a permission resting on the partner's hidden card).
        blind = parsed.add_retention != "team" or n == 2
        self._inline = [type(self.bots.get(s)) is RandomBot and blind for s in range(4)]
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        self.action_space: spaces.Space[Any] = spaces.Discrete(NUM_ACTIONS)
        self.session = Session(self.rules, deals=1)  # the episode's deal, made by reset()
        self.builder = MoveBuilder()
        self._rngs: dict[int, random.Random] = {}
        self._deal_rng = random.Random()

    # --- the episode ----------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        super().reset(seed=seed)
        base = int(self.np_random.integers(1 << 62))
        self._deal_rng = random.Random(base)
        self._rngs = {s: random.Random(f"{base}:{s}") for s in self.bots}
        dealer = self._deal_rng.randrange(self.rules.players)
        deal = Position.new_deal(self._deal_rng.getrandbits(62), dealer, self.rules)
        self.session = Session(start=deal, deals=1)
        self._illegal = 0
        self._steps = 0
        self._bots_play()
        return self._obs(), self._info()

    @property
    def position(self) -> Position:
        """The deal (read it only: moves go through :attr:`session`)."""
        return self.session.position

    @property
    def history(self) -> tuple[tuple[int, int], ...]:
        """The deal's moves as (seat, move code)."""
        return self.session.history

    def step(self, action: int) -> tuple[Obs, SupportsFloat, bool, bool, dict[str, Any]]:
        """Take one sub-decision ``action`` for the agent's seat, then let the bots move until
        the agent is to move again or the deal is over.

        Returns ``(observation, reward, terminated, truncated, info)``: the reward is the
        deal's score difference for the agent's team (times ``reward_scale``) when the deal
        ends, ``illegal_reward`` for an illegal action (the episode is truncated after
        ``max_illegal`` of them in a row, or after ``max_steps`` steps), 0 otherwise.
        """
        if self.session.deal_over:
            raise RuntimeError("the deal is over: call reset()")
        a = int(action)
        self._steps += 1
        if a not in self.builder.options():
            self._illegal += 1
            truncated = self._illegal >= self.max_illegal or self._steps >= self.max_steps
            return self._obs(), self.illegal_reward, False, truncated, self._info(illegal=True)
        self._illegal = 0
        code = self.builder.apply(a)
        if code is not None:
            self.session.play_legal(code)  # from the builder, made of legal_codes()
            self._bots_play()
        if self.render_mode == "human":
            self.render()
        if self.session.deal_over:
            s = self.position.deal_scores()
            team = self.seat & 1
            reward = (s[team] - s[1 - team]) * self.reward_scale
            return self._obs(), float(reward), True, False, self._info()
        return self._obs(), 0.0, False, self._steps >= self.max_steps, self._info()

    def action_masks(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """The legal sub-decisions now, bool ``(133,)`` (sb3-contrib's ``MaskablePPO`` reads
        it through ``get_action_masks``)."""
        return self._mask_bits().astype(np.bool_)

    def _bots_play(self) -> None:
        """Let the bots move until it is the agent's turn or the deal is over."""
        session = self.session
        inline = self._inline
        while not session.deal_over and session.to_move != self.seat:
            seat = session.to_move
            assert seat is not None
            rng = self._rngs[seat]
            if inline[seat]:  # what RandomBot does (the same draw), without its view
                session.play_legal(session.position.random_code(rng))
                continue
            view = View.from_position(session.position, seat, session.history)
            session.play(int(self.bots[seat].choose(view, rng).move))  # checked
        self.builder.reset(() if session.deal_over else session.position.legal_codes())

    # --- observing ------------------------------------------------------------------------

    def view(self) -> View:
        """The agent's :class:`~seep.view.View` with the deal's history."""
        return View.from_position(self.position, self.seat, self.session.history)

    def _mask_bits(self) -> np.ndarray[Any, np.dtype[np.int8]]:
        return mask_array(self.builder.mask())

    def _obs(self) -> Obs:
        return {
            "observation": position_observation(self.session.position, self.seat, self.builder),
            "action_mask": self._mask_bits(),
        }

    def _info(self, illegal: bool = False) -> dict[str, Any]:
        info: dict[str, Any] = {"illegal": illegal, "action_mask": self._mask_bits()}
        if self.session.deal_over:
            info["deal_scores"] = list(self.position.deal_scores())
        return info

    def render(self) -> str | None:
        return env_render(self.render_mode, self.position, self.history)


class ActionMasks(gym.Wrapper[Obs, int, Obs, int], RecordConstructorArgs):
    """The outermost wrapper of ``gymnasium.make("Seep-v0")``: it answers ``action_masks()``
    from the environment it wraps, which Gymnasium's own wrappers (the checker, the order
    check) would otherwise hide."""

    def __init__(self, env: gym.Env[Obs, int]) -> None:
        RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)

    def action_masks(self) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """The legal sub-decisions now, bool ``(133,)`` (see :meth:`SeepEnv.action_masks`)."""
        masks: np.ndarray[Any, np.dtype[np.bool_]] = self.env.get_wrapper_attr("action_masks")()
        return masks


if "Seep-v0" not in gym.registry:
    gym.register(
        id="Seep-v0",
        entry_point="seep.integrations.gymnasium:SeepEnv",
        additional_wrappers=(
            WrapperSpec("ActionMasks", "seep.integrations.gymnasium:ActionMasks", {}),
        ),
    )

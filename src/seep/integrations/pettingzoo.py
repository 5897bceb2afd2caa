"""PettingZoo: Seep as an AEC environment (extra ``seep-game[pettingzoo]``).

Four agents ``player_0`` … ``player_3`` (seat = index; partners 0+2 and 1+3), or two with the
rules ``two_player`` (``players: 2``, docs/rules.md §12). The agent to act
is always the seat to move; a move takes one to a few steps of the fixed action space of
:mod:`seep.integrations.actions` (133 ids: card, then use, then floor items), and the
observation is a dict::

    {"observation": float32[504] in [0, 1],   # seep.integrations.features.observation
     "action_mask": int8[133]}                # 1 for the allowed sub-decisions

An episode is one deal (``episode="deal"``, the default): every agent gets its team's deal
score minus the other team's (R42) when it ends, times ``reward_scale``. With
``episode="baazi"`` deals follow one another (R44-R47) until a team wins the baazi: +1 for
its agents, -1 for the others; after ``max_deals`` deals without a winner the episode is
truncated with 0. ``reset(seed=n)`` fixes every shuffle and first dealer.

>>> env = SeepAECEnv()
>>> env.reset(seed=1)
>>> obs, reward, terminated, truncated, info = env.last()
>>> obs["observation"].shape, int(obs["action_mask"].sum()) >= 1, env.agent_selection
((504,), True, 'player_2')
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from ..engine import Position
from ..options import Rules
from ..session import Session
from ..view import View
from .actions import NUM_ACTIONS, MoveBuilder
from .features import OBS_SIZE, mask_array, position_observation
from .render import env_render

__all__ = ["SeepAECEnv", "env", "raw_env"]


class SeepAECEnv(AECEnv):  # type: ignore[misc]
    """Seep for PettingZoo's agent-environment-cycle API (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "seep_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: str | dict[str, Any] | Rules = "standard",
        episode: str = "deal",
        reward_scale: float = 1.0,
        max_deals: int = 50,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if episode not in ("deal", "baazi"):
            raise ValueError(f"episode must be 'deal' or 'baazi', got {episode!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        self.rules = Rules.parse(rules)
        self.episode = episode
        self.reward_scale = reward_scale
        self.max_deals = max_deals
        self.render_mode = render_mode
        # Four agents, or two under players=2 (docs/rules.md §12), each his own team.
        self.possible_agents = [f"player_{s}" for s in range(self.rules.players)]
        self._seats = {a: s for s, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        # One space object per agent, the same one on every call (PettingZoo seeds them).
        self.observation_spaces = {
            a: obs_space if i == 0 else spaces.Dict(obs_space.spaces)
            for i, a in enumerate(self.possible_agents)
        }
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._rng = random.Random()
        self.session = Session(self.rules, deals=1)  # the episode's deals, made by reset()
        self.builder = MoveBuilder()
        self._version = 0
        self._cache: dict[str, tuple[int, dict[str, Any]]] = {}
        self._zero_mask = np.zeros(NUM_ACTIONS, np.int8)

    # --- spaces -------------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # --- episode ------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        dealer = self._rng.randrange(self.rules.players)
        baazi = self.episode == "baazi"
        self.session = Session(
            start=Position.new_deal(self._rng.getrandbits(62), dealer, self.rules),
            deals=self.max_deals if baazi else 1,
            baazis=1 if baazi else None,
        )
        self._start_move()

    @property
    def position(self) -> Position:
        """The deal in play (read it only: moves go through :attr:`session`)."""
        return self.session.position

    @property
    def history(self) -> tuple[tuple[int, int], ...]:
        """The deal's moves so far as (seat, move code)."""
        return self.session.history

    @property
    def deals_played(self) -> int:
        """Deals finished in this episode."""
        return self.session.deals_finished

    def _start_move(self) -> None:
        pos = self.position
        self.builder.reset(pos.legal_codes())
        to_move = pos.to_move
        assert to_move is not None
        self.agent_selection = self.possible_agents[to_move]
        self._version += 1

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        rewards = self.rewards
        if any(rewards.values()):
            for a in rewards:
                rewards[a] = 0.0
        self._cumulative_rewards[agent] = 0.0
        code = self.builder.apply(int(action))
        if code is None:
            self._version += 1  # same agent, one more sub-decision taken
        else:
            self.session.play_legal(code)  # from the builder, made of legal_codes()
            if self.session.deal_over:
                self._end_of_deal()
                # Rewards are only ever set here: on other steps they are all 0 and there is
                # nothing to accumulate.
                self._accumulate_rewards()
            else:
                self._start_move()
        if self.render_mode == "human":
            self.render()

    def _end_of_deal(self) -> None:
        session = self.session
        outcome = session.outcome()
        assert outcome is not None
        if self.episode == "deal":
            scores = outcome.result["score"]
            d = (scores[0] - scores[1]) * self.reward_scale
            self._finish((d, -d), truncated=False)
            return
        # One shuffle seed drawn per finished deal, used or not, so that the episodes after a
        # reset(seed=n) stay the same from version to version.
        seed = self._rng.getrandbits(62)
        if outcome.winner is not None:
            self._finish((1.0, -1.0) if outcome.winner == 0 else (-1.0, 1.0), truncated=False)
        elif session.match_over:  # max_deals deals without a baazi
            self._finish((0.0, 0.0), truncated=True)
        else:
            session.start_next_deal(seed)
            self._start_move()

    def _finish(self, team_rewards: tuple[float, float], truncated: bool) -> None:
        for s, a in enumerate(self.possible_agents):
            self.rewards[a] = float(team_rewards[s & 1])
            if truncated:
                self.truncations[a] = True
            else:
                self.terminations[a] = True
            self.infos[a] = {"deal_scores": list(self.position.deal_scores())}
        self.builder.reset(())
        self._version += 1

    # --- observing ----------------------------------------------------------------------------

    def observe(self, agent: str) -> dict[str, Any]:
        cached = self._cache.get(agent)
        if cached is not None and cached[0] == self._version:
            return cached[1]
        seat = self._seats[agent]
        mine = self.agent_selection == agent and not (
            self.terminations.get(agent) or self.truncations.get(agent)
        )
        # The seat's view, made from the position directly (features.position_observation).
        obs = {
            "observation": position_observation(
                self.session.position, seat, self.builder if mine else None
            ),
            "action_mask": mask_array(self.builder.mask()) if mine else self._zero_mask.copy(),
        }
        self._cache[agent] = (self._version, obs)
        return obs

    def view(self, agent: str) -> View:
        """The seat's :class:`~seep.view.View` with the deal's public history (for bots and
        :func:`seep.integrations.features.candidates`)."""
        return View.from_position(
            self.position, self.possible_agents.index(agent), self.session.history
        )

    def render(self) -> str | None:
        return env_render(self.render_mode, self.position, self.history)

    def close(self) -> None:
        self._cache.clear()


def raw_env(**kwargs: Any) -> SeepAECEnv:
    """The unwrapped environment."""
    return SeepAECEnv(**kwargs)


def env(**kwargs: Any) -> Any:
    """The environment with PettingZoo's usual checking wrappers (order enforcing and
    assertion on out-of-bounds actions), as PettingZoo's own environments are offered."""
    from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

    e: Any = SeepAECEnv(**kwargs)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e

"""OpenSpiel: Seep as the python game ``python_seep`` (extra ``seep-game[openspiel]``).

Importing this module registers the game::

    import pyspiel
    import seep.integrations.openspiel  # noqa: F401  (registers python_seep)
    game = pyspiel.load_game("python_seep", {"capture_rule": "any", "episode": "baazi"})

* **Players** 0..3 are the seats; partners 0+2 and 1+3; with ``players=2`` (docs/rules.md §12)
  two players, 0 and 1, each his own team: a two-player zero-sum game. Returns are zero-sum:
  per deal (``episode="deal"``, the default) each player gets his team's deal score minus
  the other's (R42); per baazi (``episode="baazi"``) +1 / -1 for the team that wins it (R45,
  R46), 0 if ``max_deals`` deals pass without a winner.
* **Parameters**: ``rules``, a preset name (``"standard"``, ``"family"``, ...: the base), and
  every rule option of docs/rules.md section 3 under its own name (``max_houses``: 0 for no limit;
  an option set to other than its standard value overrides the preset), plus ``episode``,
  ``dealer`` (the first dealer) and ``max_deals``.
* **Utility bounds**: ``max_utility`` is :func:`max_return`, the true bound of a deal return
  (1,275 under the standard rules: 100 card points and 25 + 23 x 50 sweeps), reached by a real
  deal of four players; ``min_utility`` its negative.
* **Chance**: each deal is dealt card by card, 52 chance nodes whose outcome is the card
  (``max_chance_outcomes`` 52), in the engine's deal order (bidder's 4, the face-down floor,
  then the stock; :meth:`seep.engine.Position.from_deck`). A hand without a card above 8 is
  redealt (R14); here the bidder's four cards are dealt *conditioned* on holding one, which is
  the same distribution as dealing again until he does, so the forced ``redeal`` move never
  occurs. The deals follow one another in a :class:`seep.session.Session`, which keeps their
  moves and says when the episode is over.
* **Actions**: the 133 sub-decision ids of :mod:`seep.integrations.actions` (card, then use,
  then floor items). The sub-decisions of a move in progress are public: the committed move
  shows them all anyway.
* **Observations**: the observation tensor is
  :func:`seep.integrations.features.observation` (504 values); the information-state tensor
  adds the seat's hands before and after the stock was dealt, the floor as turned up at the
  bid, and every move of the deal (49 slots of 136 bits): perfect recall within a deal. The
  strings hold the same (the information-state string also holds the baazi's earlier deals).
* **History**: ``apply_action`` from Python goes straight to the compiled core, which keeps
  the action until something reads OpenSpiel's C++ history (``history()``, ``serialize()``,
  pickling ...: they replay it there first), or C++ applies the next action; the history reads
  the same whichever way the actions came.
* :meth:`SeepState.resample_from_infostate` redeals the hidden cards with
  :meth:`seep.view.View.determinize`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found]

from ..cards import CARD_NAMES, format_cards, mask_points
from ..codes import PHASE_BID
from ..engine import Position
from ..moves import Move
from ..notation import format_position
from ..options import STANDARD, Rules
from ..view import View
from .actions import (
    ITEM0,
    ITEM_BITS,
    NUM_ACTIONS,
    NUM_USES,
    USE0,
    MoveBuilder,
    action_name,
    first_action,
    use_action,
)
from .features import OBS_SIZE, observation
from .spielcore import (
    CHANCE,
    TERMINAL,
    ChanceOutcomes,
    CurrentPlayer,
    IsTerminal,
    Returns,
    SpielCore,
    pseudo_player_error,
)

__all__ = ["GAME_TYPE", "SeepGame", "SeepObserver", "SeepState", "game_info", "max_return"]

_HIGH_CARDS = frozenset(range(32, 52))  # value 9 and above: a hand that can bid (R13)
_CHANCE = int(pyspiel.PlayerId.CHANCE)
if (_CHANCE, int(pyspiel.PlayerId.TERMINAL)) != (CHANCE, TERMINAL):  # pragma: no cover
    raise ImportError("pyspiel's player ids are not the ones seep.integrations.spielcore uses")
_MAX_SUBSTEPS = 2 + 57 + 1  # card, use, every floor item, done
_SLOT = 4 + USE0 + NUM_USES + 57  # history slot: mover (relative), first action, use, items
_SLOTS = 49  # the bid and 48 plays
INFO_SIZE = OBS_SIZE + 156 + _SLOTS * _SLOT

_RULE_PARAMS: dict[str, Any] = {k: (0 if v is None else v) for k, v in STANDARD.to_dict().items()}
_PARAMS: dict[str, Any] = {
    **_RULE_PARAMS,
    "rules": "standard",
    "episode": "deal",
    "dealer": 0,
    "max_deals": 20,
}

GAME_TYPE = pyspiel.GameType(
    short_name="python_seep",
    long_name="Python Seep",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=False,
    parameter_specification=_PARAMS,
)


def _rules_of(params: dict[str, Any]) -> Rules:
    """The rules of a parameter set: the preset ``rules`` (default ``"standard"``), then every
    option parameter whose value differs from the standard rules' overrides it (OpenSpiel
    passes every parameter, so only a change from the default can be told apart)."""
    preset = params.get("rules", "standard")
    try:
        base = Rules.parse(str(preset)).to_dict()
    except ValueError as exc:
        raise ValueError(f"rules: {exc}") from None
    for k, default in _RULE_PARAMS.items():
        if params[k] != default:
            base[k] = params[k]
    if not base["max_houses"]:
        base["max_houses"] = None
    return Rules.parse(base)


def max_return(r: Rules) -> int:
    """The largest deal return one player can get (his team's deal score minus the other's,
    R42), reached: every card point and the majority bonus, and a sweep on every play of his
    team. Plays alternate between the teams, so a team makes 24 of the 48 plays; after its
    sweep the floor is empty, the other team can only throw, and the card thrown is swept
    again. The bidder's team sweeps play 1 (``sweep_first``) and plays 3..47; the other team
    plays 2..46 and play 48 (``sweep_last``). docs/research.md shows a deal that reaches it."""
    all_cards = (1 << 52) - 1
    sv = abs(r.sweep_value)
    sweeps = max(abs(r.sweep_first) + 23 * sv, 23 * sv + abs(r.sweep_last))
    return mask_points(all_cards, r.ten_diamonds_points) + abs(r.majority_bonus) + sweeps


def game_info(params: dict[str, Any]) -> Any:
    """The ``pyspiel.GameInfo`` of a parameter set."""
    rules = _rules_of(params)
    per_deal = 1 + 48 * _MAX_SUBSTEPS
    if params["episode"] == "baazi":
        lo, hi, length = -1.0, 1.0, per_deal * params["max_deals"]
    else:
        m = float(max_return(rules))
        lo, hi, length = -m, m, per_deal
    return pyspiel.GameInfo(
        num_distinct_actions=NUM_ACTIONS,
        max_chance_outcomes=52,
        num_players=rules.players,
        min_utility=lo,
        max_utility=hi,
        utility_sum=0.0,
        max_game_length=length,
    )


class SeepGame(pyspiel.Game):  # type: ignore[misc]
    """The ``python_seep`` game (see the module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = {**_PARAMS, **(params or {})}
        if p["episode"] not in ("deal", "baazi"):
            raise ValueError(f"episode must be 'deal' or 'baazi', got {p['episode']!r}")
        if p["max_deals"] < 1:
            raise ValueError(f"max_deals must be positive, got {p['max_deals']!r}")
        self.rules = _rules_of(p)
        n = self.rules.players
        if not 0 <= p["dealer"] < n:
            raise ValueError(f"dealer must be a seat 0..{n - 1}, got {p['dealer']!r}")
        self.episode = str(p["episode"])
        self.first_dealer = int(p["dealer"])
        self.max_deals = int(p["max_deals"])
        self.cfg = (self.episode, self.max_deals, self.rules, self.first_dealer)
        super().__init__(GAME_TYPE, game_info(p), p)

    def new_initial_state(self) -> SeepState:
        return SeepState(self)

    def max_chance_nodes_in_history(self) -> int:
        return 52 * (self.max_deals if self.episode == "baazi" else 1)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> SeepObserver:
        return SeepObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


# The name states were pickled under before the core was compiled.
_Core = SpielCore


class SeepState(pyspiel.State):  # type: ignore[misc]
    """A state of ``python_seep``: dealing (chance), a deal in play, or the end.

    ``current_player``, ``is_chance_node``, ``is_terminal``, ``legal_actions``,
    ``chance_outcomes``, ``apply_action`` and ``returns`` are the compiled core's own
    (:class:`~seep.integrations.spielcore.SpielCore`, which answers each as
    ``pyspiel.State``'s method of that name does)."""

    # The calls a rollout makes on every action (five of them) go straight to the compiled
    # core: its callables, kept in slots of the state (found before any method of the
    # class), answer without a Python frame in between; OpenSpiel's C++, which calls back
    # into Python by some of these names, finds them too. They are bound again to every core
    # the state is given (``_c``: set by __init__, and by OpenSpiel's clone and
    # deserialization, which set the state's attributes one by one; unpickling sets them all
    # at once, hence __setstate__).
    __slots__ = (
        "__dict__",
        "apply_action",
        "chance_outcomes",
        "current_player",
        "is_chance_node",
        "is_terminal",
        "legal_actions",
        "returns",
    )

    def __init__(self, game: SeepGame) -> None:
        super().__init__(game)
        self._c = SpielCore(game.cfg)

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if name == "_c" or name == "__dict__":
            self._bind()

    def __setstate__(self, state: Any) -> None:
        # pybind11's unpickling sets the whole __dict__ at once, without __setattr__.
        super().__setstate__(state)
        self._bind()

    def _bind(self) -> None:
        """Bind the slots to the core (``current_player`` alone to a stand-in)."""
        c = self._c
        put = super().__setattr__
        if not isinstance(c, SpielCore):
            put("current_player", c.current_player)
            return
        # What OpenSpiel's C++ asks by name is an object to call (see spielcore); what
        # only Python asks, the core's bound methods.
        put("current_player", CurrentPlayer(c))
        put("is_terminal", IsTerminal(c))
        put("chance_outcomes", ChanceOutcomes(c))
        put("returns", Returns(c))
        put("apply_action", c.play)
        put("is_chance_node", c.is_chance_node)
        put("legal_actions", c.legal_actions)

    def _legal_actions(self, player: int) -> list[int]:
        return self._c.kept_legal()

    # --- applying actions, and OpenSpiel's history --------------------------------------------

    # OpenSpiel's C++ ``State::ApplyAction`` asks the state for its player and then applies
    # the action, two calls back into Python, before it adds (player, action) to the history
    # it keeps in C++: that was a third of a random rollout's time. Applied from Python
    # (``apply_action``: the core's ``play``), an action goes to the core at once and waits
    # in ``SpielCore.pending``; it is replayed through ``ApplyAction`` (into the C++ history
    # alone) before anything reads that history: the methods below that read it, and the
    # next action a C++ caller applies (which reaches ``_apply_action``). A clone, a
    # serialized or a pickled state carries its pending actions with it, so the C++ history
    # followed by them is always the true history.

    def _apply_action(self, action: int) -> None:
        c = self._c
        if c.pending:
            self._flush()
        c.apply(action)

    def _flush(self) -> None:
        """Replay the pending actions into OpenSpiel's C++ history (each with its player),
        leaving the game as it is."""
        c = self._c
        if not c.pending:
            return
        replay = _Replay(c.pending)
        self._c = replay  # type: ignore[assignment]  # answers current_player, takes the actions
        try:
            while replay.player != _REPLAYED:
                _apply_in_cpp(self, replay.action)
        finally:
            self._c = c
            del c.pending[: replay.done]

    def history(self) -> list[int]:
        """The actions applied so far, chance outcomes included (``pyspiel.State.history``)."""
        self._flush()
        return pyspiel.State.history(self)  # type: ignore[no-any-return]

    def full_history(self) -> list[Any]:
        """The (player, action) pairs applied so far (``pyspiel.State.full_history``)."""
        self._flush()
        return pyspiel.State.full_history(self)  # type: ignore[no-any-return]

    def history_str(self) -> str:
        """:meth:`history` as OpenSpiel writes it (``pyspiel.State.history_str``)."""
        self._flush()
        return pyspiel.State.history_str(self)  # type: ignore[no-any-return]

    def move_number(self) -> int:
        """The actions applied so far (``pyspiel.State.move_number``)."""
        self._flush()
        return pyspiel.State.move_number(self)  # type: ignore[no-any-return]

    def is_initial_state(self) -> bool:
        """Whether no action has been applied (``pyspiel.State.is_initial_state``)."""
        self._flush()
        return pyspiel.State.is_initial_state(self)  # type: ignore[no-any-return]

    def is_initial_non_chance_state(self) -> bool:
        """Whether this is the first player node (``pyspiel.State.is_initial_non_chance_state``)."""
        self._flush()
        return pyspiel.State.is_initial_non_chance_state(self)  # type: ignore[no-any-return]

    def serialize(self) -> str:
        """The state as ``game.deserialize_state`` reads it (``pyspiel.State.serialize``)."""
        self._flush()
        return pyspiel.State.serialize(self)  # type: ignore[no-any-return]

    def __getstate__(self) -> Any:
        self._flush()
        return pyspiel.State.__getstate__(self)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return "deal " + CARD_NAMES[action]
        return action_name(action)

    def __str__(self) -> str:
        c = self._c
        if c.over:
            r = c.result
            return f"over deals={c.deals} returns={r[0]:g},{r[1]:g}"
        if c.pos is None:
            return f"dealing deals={c.deals} dealt=" + " ".join(CARD_NAMES[x] for x in c.dealt)
        pending = ",".join(action_name(a) for a in c.prefix)
        return f"{format_position(c.pos)} deals={c.deals} pending=[{pending}]"

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> SeepState:
        """A state with the same information state for ``player_id``, the cards he has not
        seen dealt again at random (:meth:`View.determinize`); ``probability_sampler`` (a
        ``pyspiel`` sampler, or any callable returning a float in [0, 1)) seeds the deal."""
        c = self._c
        state: SeepState = self.clone()
        if c.pos is None or c.over or c.session is None:
            return state
        seed = int(probability_sampler() * (1 << 53)) if callable(probability_sampler) else 0
        rng = random.Random(seed)
        view = View.from_position(c.pos, player_id, c.history)
        pos = view.determinize(rng)  # the same deal at the same point, match included
        s = state._c
        s.session = c.session.redealt(pos)
        s.pos = s.session.position
        if pos.phase_id == PHASE_BID:
            s.floor0 = pos.loose  # still face down: redealt with the rest
        s.hands0, s.hands1 = _past_hands(pos, c, player_id, rng)
        s.builder = MoveBuilder(pos.legal_codes())
        for a in c.prefix:
            s.builder.apply(a)
        s.legal = None
        return state

    # --- information (used by the observer) ---------------------------------------------------

    def view(self, player: int) -> View | None:
        """The player's :class:`~seep.view.View` of the deal in play (``None`` while dealing
        or after the end)."""
        c = self._c
        if c.pos is None:
            return None
        return View.from_position(c.pos, player, c.history)


_apply_in_cpp = pyspiel.State.apply_action  # OpenSpiel's own, which keeps its C++ history
_REPLAYED = -100  # _Replay.player once every pending action is replayed


class _Replay:
    """Stands in for a state's ``SpielCore`` while its pending actions are replayed through
    OpenSpiel's C++ ``ApplyAction``: it answers ``current_player`` with each action's player
    and takes the action without applying it again."""

    __slots__ = ("action", "done", "player", "queue")
    pending = ()  # nothing of its own to replay (what _apply_action asks)

    def __init__(self, queue: list[int]) -> None:
        self.queue = queue
        self.done = 0
        self.player = _REPLAYED
        self.action = 0
        self._next()

    def _next(self) -> None:
        if self.done < len(self.queue):
            packed = self.queue[self.done]
            self.action = packed >> 3
            self.player = (packed & 7) - 4
        else:
            self.player = _REPLAYED

    def current_player(self) -> int:
        return self.player

    def apply(self, action: int) -> None:
        self.done += 1
        self._next()


def _past_hands(
    pos: Position, c: SpielCore, player: int, rng: random.Random
) -> tuple[list[int], list[int] | None]:
    """The hands before the bid and after the stock, for a resampled position, consistent with
    the moves made since: every other seat held its current cards plus the ones it played."""
    cards = [(seat, code >> 57 & 63) for seat, code in c.history if code >> 63 & 7 < 5]
    first = cards[0] if cards else None
    n = len(pos.hands)
    # Two players: after play 24 the hands hold the half-time cards (R2P7), and the hands
    # dealt at play 1 are exactly the cards played in plays 2..24.
    half = n == 2 and pos.rules.second_deal and pos.plays >= 24
    played = [0] * n
    for k, (seat, card) in enumerate(cards[1:], 2):  # play k, after the stock was dealt
        if not half or k <= 24:
            played[seat] |= 1 << card
    hands1 = None
    if c.hands1 is not None:
        hands1 = [(0 if half else pos.hands[s]) | played[s] for s in range(n)]
        hands1[player] = c.hands1[player]
    if c.hands1 is None:
        hands0 = pos.hands[:]
    else:
        assert hands1 is not None and first is not None
        hands0 = [0] * n
        bseat, bcard = first
        if pos.rules.deal_before_bid:
            # Every seat had four cards before the bid: the play-1 card and three others.
            for s in range(n):
                pool = [x for x in range(52) if hands1[s] >> x & 1]
                k = 3 if s == bseat else 4
                for x in rng.sample(pool, min(k, len(pool))):
                    hands0[s] |= 1 << x
        else:
            pool = [x for x in range(52) if hands1[bseat] >> x & 1]
            for x in rng.sample(pool, min(3, len(pool))):
                hands0[bseat] |= 1 << x
        hands0[bseat] |= 1 << bcard
        hands0[player] = c.hands0[player]
    return hands0, hands1


class SeepObserver:
    """The PyObserver of ``python_seep``: observation (``perfect_recall=False``) or
    information state (``perfect_recall=True``) for the seat's own private information."""

    def __init__(self, iig_obs_type: Any, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("python_seep observes one seat's private cards, not all players'")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        size = INFO_SIZE if self.perfect_recall else OBS_SIZE
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, Any] = {"observation": self.tensor[:OBS_SIZE]}
        if self.perfect_recall:
            # Hands before the bid and after the stock, and the floor as turned up (R15).
            self.dict["cards"] = self.tensor[OBS_SIZE : OBS_SIZE + 156].reshape(3, 52)
            self.dict["history"] = self.tensor[OBS_SIZE + 156 :].reshape(_SLOTS, _SLOT)

    def set_from(self, state: SeepState, player: int) -> None:
        c = state._c
        t = self.tensor
        view = state.view(player)
        if view is None:
            t.fill(0.0)
            return
        observation(view, c.builder if c.prefix else None, t[:OBS_SIZE])
        if not self.private:
            t[: 52 * 1] = 0.0  # own hand plane
        if not self.perfect_recall:
            return
        big = 0
        if self.private:
            big = c.hands0[player] | (c.hands1[player] if c.hands1 else 0) << 52
        if view.phase_id != PHASE_BID:
            big |= c.floor0 << 104
        for i, (seat, code) in enumerate(c.history):
            f = first_action(code)
            slot = 1 << (seat - player) % len(c.hands0) | 1 << (4 + f)
            if code >> 63 & 7 < 5:  # a card play: its use and items
                slot |= 1 << (4 + use_action(code)) | (code & ITEM_BITS) << (4 + ITEM0)
            big |= slot << (156 + _SLOT * i)
        nbits = INFO_SIZE - OBS_SIZE
        raw = np.frombuffer(big.to_bytes((nbits + 7) // 8, "little"), np.uint8)
        t[OBS_SIZE:] = np.unpackbits(raw, count=nbits, bitorder="little")

    def string_from(self, state: SeepState, player: int) -> str:
        c = state._c
        parts = [f"p{player}"]
        if self.perfect_recall and c.session is not None:
            for i, (dealer, floor, h0, h1) in enumerate(c.past):
                hist = c.session.deal_history(i)
                parts.append(self._deal_string(player, dealer, floor, h0, h1, hist))
        if c.over:
            parts.append("over")
            return " | ".join(parts)
        if c.pos is None:
            parts.append(f"dealing {len(c.dealt)}")
            return " | ".join(parts)
        if self.perfect_recall:
            shown = c.floor0 if c.pos.phase_id != PHASE_BID else None
            parts.append(
                self._deal_string(player, c.pos.dealer, shown, c.hands0, c.hands1, c.history)
            )
        else:
            parts.append(self._view_string(state, player))
        if c.prefix:
            parts.append("pending " + ",".join(action_name(a) for a in c.prefix))
        return " | ".join(parts)

    def _deal_string(
        self,
        player: int,
        dealer: int,
        floor0: int | None,
        h0: list[int],
        h1: list[int] | None,
        history: Sequence[tuple[int, int]],
    ) -> str:
        hands = ""
        if self.private:
            hands = f" h0[{format_cards(h0[player])}]"
            if h1 is not None:
                hands += f" h1[{format_cards(h1[player])}]"
        floor = "" if floor0 is None else f" f[{format_cards(floor0)}]"
        moves = " ".join(f"{s}:{Move(code)}" for s, code in history)
        return f"d{dealer}{hands}{floor} m[{moves}]"

    def _view_string(self, state: SeepState, player: int) -> str:
        c = state._c
        pos = c.pos
        assert pos is not None
        v = View.from_position(pos, player)
        houses = " ".join(
            f"H{value}{'c' if cem else ''}[{format_cards(cards)}]{owners:x}"
            for value, cards, cem, owners in v.houses
        )
        hand = format_cards(v.hand) if self.private else "?"
        floor = f"facedown {v.facedown}" if v.phase_id == PHASE_BID else format_cards(v.loose)
        return (
            f"d{v.dealer} {v.phase} plays {v.plays} bid {v.bid} hand[{hand}] "
            f"sizes{list(v.hand_sizes)} floor[{floor}] houses[{houses}] "
            f"piles {v.captured[0].bit_count()},{v.captured[1].bit_count()} "
            f"sweeps{list(v.sweeps)} last {v.last_capture} match {v.match[0]}/"
            f"{v.match[1][0]}-{v.match[1][1]}/{v.match[2]}"
        )


pseudo_player_error(pyspiel.SpielError)
pyspiel.register_game(GAME_TYPE, SeepGame)

"""python_seep passes OpenSpiel's own checks and is played by OpenSpiel's own bots."""

from __future__ import annotations

import random
from typing import Any

import pytest

pyspiel = pytest.importorskip("pyspiel")
np = pytest.importorskip("numpy")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

import seep.integrations.openspiel  # noqa: E402, F401  (registers python_seep)
from seep.codes import PHASE_OVER  # noqa: E402
from seep.integrations.actions import NUM_ACTIONS  # noqa: E402


def test_random_sim_test() -> None:
    pyspiel.random_sim_test(pyspiel.load_game("python_seep"), 3, True, False)


@pytest.mark.parametrize(
    "params",
    [
        {"episode": "baazi", "max_deals": 3, "dealer": 2},
        {"capture_rule": "any", "house_in_sums": True, "deal_before_bid": True},
        {"throw_rule": "always", "max_houses": 2, "ten_diamonds_points": 2, "majority_bonus": 4},
    ],
)
def test_random_sim_test_with_options(params: dict[str, object]) -> None:
    pyspiel.random_sim_test(pyspiel.load_game("python_seep", params), 1, True, False)


def test_parameters_map_to_rules() -> None:
    game = pyspiel.load_game("python_seep", {"capture_rule": "any", "max_houses": 2})
    assert game.rules.capture_rule == "any" and game.rules.max_houses == 2
    assert game.num_distinct_actions() == NUM_ACTIONS
    assert game.max_chance_outcomes() == 52
    with pytest.raises(Exception, match="capture_rule"):
        pyspiel.load_game("python_seep", {"capture_rule": "some"})


def play_out(state: object, rng: random.Random) -> None:
    while not state.is_terminal():  # type: ignore[attr-defined]
        if state.is_chance_node():  # type: ignore[attr-defined]
            acts, probs = zip(*state.chance_outcomes(), strict=True)  # type: ignore[attr-defined]
            state.apply_action(rng.choices(acts, probs)[0])  # type: ignore[attr-defined]
        else:
            state.apply_action(rng.choice(state.legal_actions()))  # type: ignore[attr-defined]


def test_bidder_never_needs_a_redeal_and_returns_are_deal_scores() -> None:
    game = pyspiel.load_game("python_seep")
    rng = random.Random(1)
    for _ in range(3):
        state = game.new_initial_state()
        while state.is_chance_node():
            acts, probs = zip(*state.chance_outcomes(), strict=True)
            assert abs(sum(probs) - 1.0) < 1e-9
            state.apply_action(rng.choices(acts, probs)[0])
        pos = state._c.pos
        assert pos.hands[pos.bidder] >> 32  # a card above 8 (R14)
        play_out(state, rng)
        assert pos.phase_id == PHASE_OVER
        s = pos.deal_scores()
        assert state.returns() == [s[0] - s[1], s[1] - s[0], s[0] - s[1], s[1] - s[0]]


def test_chance_conditioning_is_exact() -> None:
    # P(first card is low) = P(low and the hand has a high card) / P(hand has a high card).
    from math import comb

    state = pyspiel.load_game("python_seep").new_initial_state()
    probs = dict(state.chance_outcomes())
    p_low = sum(p for card, p in probs.items() if card < 32)
    want = (32 / 52) * (1 - comb(31, 3) / comb(51, 3)) / (1 - comb(32, 4) / comb(52, 4))
    assert abs(p_low - want) < 1e-12


def deal_to_play(game: object, seed: int, plays: int) -> object:
    rng = random.Random(seed)
    state = game.new_initial_state()  # type: ignore[attr-defined]
    while state.is_chance_node() or state._c.pos.plays < plays:
        if state.is_chance_node():
            acts, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(acts, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_resample_keeps_the_information_state() -> None:
    game = pyspiel.load_game("python_seep")
    for seed, plays in [(1, 0), (2, 1), (3, 9), (4, 30)]:
        state = deal_to_play(game, seed, plays)
        player = state.current_player()
        sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
        for _ in range(3):
            other = state.resample_from_infostate(player, sampler)
            assert other.information_state_string(player) == state.information_state_string(player)
            assert other.observation_string(player) == state.observation_string(player)
            assert np.array_equal(
                other.information_state_tensor(player), state.information_state_tensor(player)
            )
            assert other.legal_actions() == state.legal_actions()
        play_out(other, random.Random(seed))


def test_tensors_and_strings() -> None:
    game = pyspiel.load_game("python_seep")
    state = deal_to_play(game, 5, 12)
    p = state.current_player()
    obs = np.array(state.observation_tensor(p))
    info = np.array(state.information_state_tensor(p))
    assert obs.shape == tuple(game.observation_tensor_shape())
    assert info.shape == tuple(game.information_state_tensor_shape())
    assert np.array_equal(info[: obs.size], obs)
    assert ((obs >= 0) & (obs <= 1)).all()
    assert state.information_state_string(p) != state.information_state_string((p + 1) % 4)
    assert "h1[" in state.information_state_string(p)


@pytest.mark.parametrize("seed", [3, 11])
def test_legal_actions_depend_only_on_the_information_state(seed: int) -> None:
    # ISMCTS keys its nodes by (player, information state) across sampled worlds; each key
    # must always come with the same legal actions.
    game = pyspiel.load_game("python_seep")
    rs = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=200.0, max_simulations=12, random_state=rs)
    seen: dict[object, tuple[int, ...]] = {}
    key_of = bot.get_state_key

    def checked_key(state: object) -> object:
        key = key_of(state)
        legal = tuple(state.legal_actions())  # type: ignore[attr-defined]
        assert seen.setdefault(key, legal) == legal, key
        return key

    bot.get_state_key = checked_key
    rng = random.Random(seed)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal() and decisions < 30:
        if state.is_chance_node():
            acts, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(acts, probs)[0])
        elif state.current_player() % 2 == seed % 2:
            state.apply_action(bot.step(state))
            decisions += 1
        else:
            state.apply_action(rng.choice(state.legal_actions()))


def test_ismcts_and_mcts_bots_play_a_deal() -> None:
    game = pyspiel.load_game("python_seep")
    rs = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bots = [
        ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=4, random_state=rs),
        mcts.MCTSBot(game, uct_c=2.0, max_simulations=4, evaluator=evaluator, random_state=rs),
    ]
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            acts, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rs.choice(acts, p=probs)))
        else:
            bot = bots[state.current_player() % 2]
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
    assert sum(state.returns()) == 0


def test_utility_bound_is_the_true_one_and_rules_preset() -> None:
    from seep.integrations.openspiel import max_return

    game = pyspiel.load_game("python_seep")
    # 100 card points, sweep on play 1 (25) and on the team's 23 later plays (50 each).
    assert game.max_utility() == 1275.0 == -game.min_utility()
    family = pyspiel.load_game("python_seep", {"rules": "family", "sweep_value": 30})
    assert family.rules.ten_diamonds_points == 2 and family.rules.sweep_value == 30
    assert family.max_utility() == max_return(family.rules) == 96 + 4 + 25 + 23 * 30
    with pytest.raises(Exception, match="unknown rules preset"):
        pyspiel.load_game("python_seep", {"rules": "nope"})


# --- two players (docs/rules.md §12) ------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {"players": 2},
        {"players": 2, "episode": "baazi", "max_deals": 3, "dealer": 1},
        {"players": 2, "second_deal": False, "deal_before_bid": True},
    ],
)
def test_two_player_game_is_zero_sum_and_passes_random_sim_test(params: dict[str, object]) -> None:
    game = pyspiel.load_game("python_seep", params)
    assert game.num_players() == 2
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    pyspiel.random_sim_test(game, 2, True, False)


def test_two_player_returns_are_the_deal_score_difference() -> None:
    game = pyspiel.load_game("python_seep", {"players": 2})
    state = deal_to_play(game, 6, 0)
    play_out(state, random.Random(6))
    s = state._c.pos.deal_scores()
    assert state.returns() == [s[0] - s[1], s[1] - s[0]]
    with pytest.raises(Exception, match=r"dealer must be a seat 0\.\.1"):
        pyspiel.load_game("python_seep", {"players": 2, "dealer": 3})


@pytest.mark.parametrize("plays", [0, 1, 9, 23, 24, 30])
def test_two_player_resample_keeps_the_information_state(plays: int) -> None:
    """The hidden cards are the opponent's hand and, before play 24, the half-time stock."""
    game = pyspiel.load_game("python_seep", {"players": 2})
    state = deal_to_play(game, plays + 1, plays)
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(3):
        other = state.resample_from_infostate(player, sampler)
        assert other.information_state_string(player) == state.information_state_string(player)
        assert np.array_equal(
            other.information_state_tensor(player), state.information_state_tensor(player)
        )
        assert other.legal_actions() == state.legal_actions()
    play_out(other, random.Random(plays))


def test_two_player_ismcts_plays_a_deal() -> None:
    game = pyspiel.load_game("python_seep", {"players": 2})
    rs = np.random.RandomState(2)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=4, random_state=rs)
    rng = random.Random(2)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            acts, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(acts, probs)[0])
        elif state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    r = state.returns()
    assert len(r) == 2 and r[0] + r[1] == 0


@pytest.mark.parametrize("params", [{}, {"players": 2}, {"episode": "baazi", "max_deals": 2}])
def test_python_answers_are_openspiels(params: dict[str, object]) -> None:
    """current_player, is_chance_node and legal_actions answer in Python from what the state
    keeps; OpenSpiel's C++ State methods (which call back into the state) agree everywhere."""
    game = pyspiel.load_game("python_seep", params)
    rng = random.Random(6)
    base = pyspiel.State
    for _ in range(2):
        state = game.new_initial_state()
        while True:
            p = state.current_player()
            assert state.is_chance_node() == base.is_chance_node(state) == (p == -1)
            assert state.legal_actions() == base.legal_actions(state)
            for q in range(game.num_players()):
                assert state.legal_actions(q) == base.legal_actions(state, q)
            if state.is_terminal():
                assert state.legal_actions() == [] and p == pyspiel.PlayerId.TERMINAL
                break
            if not state.is_chance_node():
                with pytest.raises(pyspiel.SpielError, match="pseudo-player"):
                    state.legal_actions(-1)
                with pytest.raises(pyspiel.SpielError, match="pseudo-player"):
                    base.legal_actions(state, -1)
                mine = state.legal_actions()
                mine.clear()  # the caller's copy: the state's own list is untouched
                assert state.legal_actions() == base.legal_actions(state)
            state.apply_action(rng.choice(state.legal_actions()))


def _play_through_digest(params: dict[str, object], seed: int) -> str:
    """One seeded random game, hashed: every state's player, string, legal actions, chance
    outcomes, information-state and observation strings of every player, and (every 7th
    state) their tensors, then the returns; serialize/deserialize and clone checked on the
    way."""
    import hashlib

    game = pyspiel.load_game("python_seep", params)
    rng = random.Random(seed)
    h = hashlib.sha256()
    state = game.new_initial_state()
    n = game.num_players()
    step = 0
    while True:
        p = state.current_player()
        h.update(
            f"{p}|{state}|{state.is_terminal()}|{state.legal_actions()}|{state.history()}".encode()
        )
        if state.is_chance_node():
            h.update(repr(state.chance_outcomes()).encode())
        if not state.is_chance_node() or step % 7 == 0:
            for q in range(n):
                h.update(state.information_state_string(q).encode())
                h.update(state.observation_string(q).encode())
                if step % 7 == 0:
                    info = np.asarray(state.information_state_tensor(q), np.float32)
                    h.update(info.tobytes())
                    h.update(np.asarray(state.observation_tensor(q), np.float32).tobytes())
        if state.is_terminal():
            h.update(repr(state.returns()).encode())
            return h.hexdigest()[:16]
        if step % 5 == 0:
            again = game.deserialize_state(state.serialize())
            assert str(again) == str(state) and again.history() == state.history()
            for q in range(n):
                assert again.information_state_string(q) == state.information_state_string(q)
            twin = state.clone()
            assert str(twin) == str(state) and twin.legal_actions() == state.legal_actions()
        if state.is_chance_node():
            acts, probs = zip(*state.chance_outcomes(), strict=True)
            a = rng.choices(acts, probs)[0]
        else:
            a = rng.choice(state.legal_actions())
        h.update(state.action_to_string(p, a).encode())
        state.apply_action(a)
        step += 1


@pytest.mark.parametrize(
    ("params", "digest"),
    [
        ({}, "a887e7dbc9b41034"),
        ({"players": 2}, "c80a242313732810"),
        ({"episode": "baazi", "max_deals": 2, "dealer": 1}, "5e453dfa1119f10a"),
        (
            {"throw_rule": "always", "deal_before_bid": True, "capture_rule": "any"},
            "9bf4858081e75a0e",
        ),
    ],
)
def test_play_through_is_unchanged(params: dict[str, object], digest: str) -> None:
    """The game as it was before its state moved to the compiled seep.integrations.spielcore:
    the same answers, strings and tensors along seeded games (compiled and pure Python alike).
    A deliberate change of a string or tensor changes these digests: update them with it."""
    assert _play_through_digest(params, 7) == digest


def _history_of(state: object) -> tuple[object, ...]:
    """Everything OpenSpiel answers from the history it keeps (in C++)."""
    s: Any = state
    full = [(pa.player, pa.action) for pa in s.full_history()]
    head = s.serialize().split("\n")[:2]  # history= and move_number=; the rest is the core
    return (s.history(), full, s.history_str(), s.move_number(), s.is_initial_state(), head)


@pytest.mark.parametrize("params", [{}, {"players": 2}, {"episode": "baazi", "max_deals": 2}])
def test_history_is_the_same_whichever_way_actions_are_applied(params: dict[str, object]) -> None:
    """apply_action from Python goes straight to the core (OpenSpiel's C++ history catches up
    when it is read): every way of applying actions, from Python or through C++, mixed in one
    game with clones, copies and pickles of states with actions still to catch up, gives the
    history of a state whose every action went through OpenSpiel's C++ ApplyAction."""
    import pickle

    game = pyspiel.load_game("python_seep", params)
    rng = random.Random(11)
    cpp_apply = pyspiel.State.apply_action
    ref = game.new_initial_state()
    state = game.new_initial_state()
    assert _history_of(state) == _history_of(ref)
    step = 0
    while not ref.is_terminal():
        if ref.is_chance_node():
            a = rng.choice(ref.chance_outcomes())[0]
        else:
            a = rng.choice(ref.legal_actions())
        cpp_apply(ref, a)
        way = rng.randrange(8)
        if way == 0:
            cpp_apply(state, a)
        elif way == 1:
            state.apply_action_with_legality_check(a)
        elif way == 2:
            state = state.child(a)
        elif way == 3:
            state.apply_action(np.int64(a))
        else:
            state.apply_action(a)
        step += 1
        if step % 17 == 0:
            state = state.clone()
        elif step % 29 == 0:
            state = pickle.loads(pickle.dumps(state))
        elif step % 31 == 0:
            state = game.deserialize_state(state.serialize())
        if step % 13 == 0:
            assert _history_of(state) == _history_of(ref)
        assert state.current_player() == ref.current_player()
    assert state.is_terminal() and state.returns() == ref.returns()
    assert _history_of(state) == _history_of(ref)
    assert str(state) == str(ref)


def test_a_refused_action_leaves_the_history_as_it_was() -> None:
    """An action the game refuses (a card dealt already, not an integer, a sub-decision not
    allowed) raises and stays out of the history; numpy's integers are taken, as OpenSpiel
    takes them."""
    game = pyspiel.load_game("python_seep")
    state = game.new_initial_state()
    state.apply_action(5)
    with pytest.raises(ValueError):
        state.apply_action(5)  # dealt already
    with pytest.raises(TypeError):
        state.apply_action(1.5)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    legal = state.legal_actions()
    assert state.legal_actions(np.int64(state.current_player())) == legal
    with pytest.raises(ValueError):
        state.apply_action(next(a for a in range(NUM_ACTIONS) if a not in legal))
    assert state.history()[0] == 5 and state.move_number() == 52 == len(state.history())


def test_cpp_algorithms_see_the_history_of_actions_applied_from_python() -> None:
    """A state handed to OpenSpiel's C++ with actions applied from Python: C++ plays it out
    (pyspiel.evaluate_bots, its actions reaching the history through C++) as it plays out a
    state whose every action went through C++, and its serialization carries the whole
    history."""
    game = pyspiel.load_game("python_seep")
    rng = random.Random(2)
    state = game.new_initial_state()
    ref = game.new_initial_state()
    for _ in range(60):
        a = rng.choice(state.legal_actions())
        state.apply_action(a)
        pyspiel.State.apply_action(ref, a)
    text = pyspiel.serialize_game_and_state(game, state)
    again = pyspiel.deserialize_game_and_state(text)[1]
    assert again.history() == ref.history() and str(again) == str(ref)
    returns = []
    for s in (state, ref):
        bots = [pyspiel.make_uniform_random_bot(p, 5 + p) for p in range(4)]
        returns.append(pyspiel.evaluate_bots(s, bots, 4))
    assert returns[0] == returns[1]
    assert _history_of(state) == _history_of(ref) and state.is_terminal()

"""The arena (seep.arena): duplicate deals, baazi matches, reproducibility across workers,
the statistics on hand-made inputs with known answers, and the ``seep arena`` command."""

from __future__ import annotations

import importlib
import io
import json
import math
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from seep import floor as floor_module
from seep.arena import (
    ArenaError,
    BotError,
    BotSpec,
    MatchConfig,
    RunError,
    cli,
    elo_expected,
    elo_ratings,
    mean_ci,
    play_game,
    play_pair,
    ratio_ci,
    round_robin,
    run_match,
    t_quantile,
    wilson,
)
from seep.arena.progress import ProgressBar
from seep.bots import BOTS, make_bot
from seep.format import position_from_dict
from seep.options import Rules
from seep.session import replay_record
from seep.view import View
from seepkit.arena_plugin import PLUGIN, write_plugin

ROOT = Path(__file__).resolve().parents[2]
make_bot("random")  # loads the built-in bots, so BOTS lists every registered name

PLUGIN_DIR: Path | None = None


@pytest.fixture(scope="module", autouse=True)
def test_bots(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The plugin module, importable here and in spawned workers (they inherit sys.path);
    its bots are unregistered afterwards."""
    global PLUGIN_DIR
    PLUGIN_DIR = write_plugin(tmp_path_factory.mktemp("plugin"))
    sys.path.insert(0, str(PLUGIN_DIR))
    try:
        yield importlib.import_module(PLUGIN)
    finally:
        sys.path.remove(str(PLUGIN_DIR))
        sys.modules.pop(PLUGIN, None)
        for name in [n for n in BOTS if n.startswith("arena-")]:
            del BOTS[name]


def fast_bots() -> list[str]:
    """Registered bots cheap enough for a test run (ISMCTS with a small iteration budget)."""
    names = [n for n in BOTS if not n.startswith("arena-")]
    return [f"{n}:iterations=8" if n == "ismcts" else n for n in names]


def strong_bot() -> str:
    """A bot other than random when one is registered (its tie-breaks exercise more code)."""
    return "greedy" if "greedy" in BOTS else "random"


# --- duplicate deals -----------------------------------------------------------------------


def test_duplicate_pair_swaps_seats_with_the_same_cards(test_bots: ModuleType) -> None:
    config = MatchConfig(
        bots=(BotSpec("arena-spy-a"), BotSpec("arena-spy-b")), seed=11, pairs=3, records=True
    )
    for pair in range(3):
        starts = []
        for seating in (0, 1):
            test_bots.CALLS.clear()
            game = play_game(config, pair, seating)
            assert game.record is not None
            starts.append(game.record["deals"][0]["start"])
            a_seats = {seat for tag, seat, _, _ in test_bots.CALLS if tag == "a"}
            b_seats = {seat for tag, seat, _, _ in test_bots.CALLS if tag == "b"}
            assert a_seats == ({0, 2} if seating == 0 else {1, 3})
            assert b_seats == ({1, 3} if seating == 0 else {0, 2})
            labels = game.record["arena"]["seats"]
            assert labels == [
                ("arena-spy-a" if s % 2 == seating else "arena-spy-b") for s in range(4)
            ]
            # Honesty: a bot is only ever shown its own seat's View.
            for _, seat, shown, _ in test_bots.CALLS:
                assert type(shown) is View
                assert shown.seat == seat and shown.is_my_turn()
        # Same shuffle, same dealer, same cards on every seat: only the bots moved.
        assert starts[0] == starts[1]


def test_two_player_duplicate_pair_swaps_the_two_seats(test_bots: ModuleType) -> None:
    """docs/rules.md §12: with two players seating 0 puts A on seat 0, seating 1 on seat 1, with
    the same cards dealt."""
    config = MatchConfig(
        bots=(BotSpec("arena-spy-a"), BotSpec("arena-spy-b")),
        seed=12,
        pairs=2,
        records=True,
        rules=Rules.parse("two_player"),
    )
    for pair in range(2):
        starts = []
        for seating in (0, 1):
            test_bots.CALLS.clear()
            game = play_game(config, pair, seating)
            assert game.record is not None
            start = game.record["deals"][0]["start"]
            assert len(start["hands"]) == 2 and start["dealer"] in (0, 1)
            starts.append(start)
            assert {seat for tag, seat, _, _ in test_bots.CALLS if tag == "a"} == {seating}
            assert {seat for tag, seat, _, _ in test_bots.CALLS if tag == "b"} == {1 - seating}
            assert game.record["arena"]["seats"] == (
                ["arena-spy-a", "arena-spy-b"] if seating == 0 else ["arena-spy-b", "arena-spy-a"]
            )
            replay_record(game.record)
        assert starts[0] == starts[1]


@pytest.mark.parametrize("bot", fast_bots())
def test_every_registered_bot_plays_two_players(bot: str) -> None:
    result = run_match(bot, "random", deals=2, seed=4, rules="two_player")
    assert result.deals == 2
    assert sum(result.to_dict()["moves"]) >= 2 * 49
    assert "A on seat 0 " in cli.format_match(result)


def test_each_seat_has_its_own_seeded_rng(test_bots: ModuleType) -> None:
    config = MatchConfig(bots=(BotSpec("arena-spy-a"), BotSpec("arena-spy-b")), seed=5)
    draws: dict[tuple[int, int], set[float]] = {}
    for seating in (0, 1):
        test_bots.CALLS.clear()
        play_game(config, 0, seating)
        # The first call of each seat shows its RNG fresh: the same draw in a replay.
        first: dict[int, float] = {}
        for _, seat, _, x in test_bots.CALLS:
            first.setdefault(seat, x)
        for seat, x in first.items():
            draws.setdefault((seating, seat), set()).add(x)
    firsts = [x for xs in draws.values() for x in xs]
    assert len(set(firsts)) == len(firsts) == 8  # 2 seatings x 4 seats, all different
    test_bots.CALLS.clear()
    play_game(config, 0, 1)
    again = {seat: x for _, seat, _, x in reversed(test_bots.CALLS)}
    assert all(again[s] in draws[(1, s)] for s in range(4))


def test_records_replay_and_agree_with_the_tallies() -> None:
    result = run_match("random", strong_bot(), deals=6, seed=3, records=True)
    records = result.records()
    assert len(records) == len(result.games) == 6
    for game, record in zip(result.games, records, strict=True):
        replayed = list(replay_record(record))  # every move legal, every result right
        assert replayed[-1][1]["phase"] == "over"
        (deal,) = record["deals"]
        score = deal["result"]["score"]
        a_team = game.seating
        assert game.diffs == (score[a_team] - score[1 - a_team],)
        assert game.score == (score[a_team], score[1 - a_team])
        assert sum(game.moves) == len(deal["moves"])
    assert result.deals == 6 and result.pairs == 3
    d = result.to_dict(timing=False)
    assert d["mean_diff"] == pytest.approx(sum(sum(g.diffs) for g in result.games) / 6, abs=1e-4)
    assert sum(d["pair_outcomes"].values()) == 3


def test_a_game_does_not_depend_on_what_was_played_before() -> None:
    # The engine's legal-move order depends on the position alone, not on its memo tables,
    # so a pair played with empty tables equals the same pair played after many others.
    config = MatchConfig(bots=(BotSpec(strong_bot()), BotSpec("random")), seed=1, pairs=60)
    warm = [play_pair(config, p) for p in range(60)]
    for p in range(40, 60):
        floor_module.clear_caches()
        assert play_pair(config, p) == warm[p]


# --- reproducibility -----------------------------------------------------------------------


def test_same_seed_same_results_any_worker_count() -> None:
    kwargs = {"deals": 24, "seed": 7}
    one = run_match(strong_bot(), "random", workers=1, **kwargs).to_dict(timing=False)
    two = run_match(strong_bot(), "random", workers=2, **kwargs).to_dict(timing=False)
    assert one == two
    assert json.dumps(one) == json.dumps(two)
    other = run_match(strong_bot(), "random", deals=24, seed=8).to_dict(timing=False)
    assert other != one


def test_round_robin_reproducible_across_workers() -> None:
    bots = ["random", strong_bot(), "arena-first"] if strong_bot() != "random" else None
    bots = bots or ["random", "arena-first"]
    one = round_robin(bots, deals=8, seed=2, plugins=[PLUGIN], workers=1)
    two = round_robin(bots, deals=8, seed=2, plugins=[PLUGIN], workers=2)
    assert one.to_dict(timing=False) == two.to_dict(timing=False)
    assert set(one.elo) == set(bots)
    assert sum(one.elo.values()) / len(bots) == pytest.approx(1500)
    assert len(one.matches) == len(bots) * (len(bots) - 1) // 2


@pytest.mark.parametrize("bot", fast_bots())
def test_every_registered_bot_plays(bot: str) -> None:
    result = run_match(bot, "random", deals=2, seed=4)
    assert result.deals == 2
    assert sum(result.to_dict()["moves"]) >= 2 * 49


# --- baazis ----------------------------------------------------------------------------------


def test_baazi_mode_ends_each_baazi_when_it_is_won() -> None:
    result = run_match(strong_bot(), "random", baazis=4, seed=9, records=True)
    assert len(result.games) == 4
    for game, record in zip(result.games, result.records(), strict=True):
        assert game.baazi_winner in (0, 1)
        assert game.deals == len(record["deals"]) == len(game.diffs) >= 1
        rules = Rules.parse(record["rules"])
        a_team = game.seating
        for k, deal in enumerate(record["deals"]):
            *_, (_, last) = replay_record({**record, "deals": [deal]})
            pos = position_from_dict(last)
            after = pos.next_deal(0)
            ended = after.match_baazis != pos.match_baazis
            # The baazi ends at the last deal and at no deal before (R45, R46).
            assert ended == (k == game.deals - 1)
            if ended:
                won = 0 if after.match_baazis[0] > pos.match_baazis[0] else 1
                assert game.baazi_winner == (0 if won == a_team else 1)
                scores = pos.deal_scores()
                d = pos.match_diff + scores[0] - scores[1]
                assert abs(d) >= rules.baazi_lead or min(scores) < rules.min_score
            else:
                nxt = record["deals"][k + 1]["start"]
                assert nxt["match"]["deals"] == k + 1  # the match state carried over
    # The first deal of both seatings is the same shuffle from the same dealer.
    records = result.records()
    assert records[0]["deals"][0]["start"] == records[1]["deals"][0]["start"]
    d = result.to_dict(timing=False)
    assert d["baazis"]["a"] + d["baazis"]["b"] == 4
    assert d["deals"] == sum(g.deals for g in result.games)
    lo, hi = d["baazis"]["wilson95"]
    assert 0 <= lo <= d["baazis"]["win_rate"] <= hi <= 1


def test_baazi_cut_off_after_max_deals_is_unfinished() -> None:
    result = run_match("random", "random", baazis=6, seed=1, max_deals=1)
    a, b, unfinished = result.baazi_counts()
    assert a + b + unfinished == 6
    assert all(g.deals == 1 for g in result.games)
    # Random against random rarely ends a baazi in one deal: some are cut off here.
    assert unfinished == sum(g.baazi_winner is None for g in result.games) > 0


def test_baazi_runs_reproducible_across_workers() -> None:
    one = run_match("random", strong_bot(), baazis=6, seed=4, workers=1)
    two = run_match("random", strong_bot(), baazis=6, seed=4, workers=2)
    assert one.to_dict(timing=False) == two.to_dict(timing=False)


# --- bad settings and bad bots ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"deals": 3}, "must be even"),
        ({"deals": 0}, "must be even"),
        ({"deals": 2, "baazis": 2}, "either"),
        ({}, "either"),
        ({"deals": 2, "workers": 0}, "workers"),
        ({"deals": 2, "backend": "cloud"}, "unknown backend"),
        ({"deals": 2, "rules": "chess"}, "unknown rules preset"),
    ],
)
def test_bad_settings(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ArenaError, match=message):
        run_match("random", "random", **kwargs)  # type: ignore[arg-type]


def test_unknown_bot_and_bad_bot_settings() -> None:
    with pytest.raises(ArenaError, match="unknown bot 'nobody'"):
        run_match("random", "nobody", deals=2)
    with pytest.raises(ArenaError, match="random:speed=3"):
        run_match("random:speed=3", "random", deals=2)
    with pytest.raises(ArenaError, match="once"):
        round_robin(["random", "random"], deals=2)


def test_illegal_move_is_refused_with_where_it_happened() -> None:
    with pytest.raises(BotError, match=r"arena-cheat.*illegal move.*seed 3"):
        run_match("arena-cheat", "random", deals=2, seed=3, plugins=[PLUGIN])
    # The same through worker processes, which import the plugin themselves.
    with pytest.raises(BotError, match="illegal move"):
        run_match("arena-cheat", "random", deals=4, seed=3, plugins=[PLUGIN], workers=2)


def test_a_bot_that_fails_is_named_with_where_it_happened() -> None:
    with pytest.raises(BotError, match=r"arena-sulk.*seed 6.*will not play"):
        run_match("arena-sulk", "random", deals=2, seed=6)
    with pytest.raises(RuntimeError, match="crashed") as info:
        run_match("arena-sulk:crash=true", "random", deals=2, seed=6)
    assert any("arena-sulk" in note and "seed 6" in note for note in info.value.__notes__)


def test_a_bot_known_only_to_the_parent_is_explained() -> None:
    # Registered here by the fixture's import, but not named as a plugin: spawned workers
    # have never heard of it.
    with pytest.raises(ArenaError, match=r"in a worker process.*--plugin"):
        run_match("arena-first", "random", deals=4, workers=2)


def test_a_dead_worker_stops_the_run() -> None:
    with pytest.raises(RunError, match="worker process died"):
        run_match("arena-die", "random", deals=4, workers=2, plugins=[PLUGIN])


def test_timed_bots_are_flagged_as_not_reproducible() -> None:
    result = run_match("arena-clock", "arena-first", deals=2, plugins=[PLUGIN])
    (warning,) = result.warnings
    assert "arena-clock" in warning and "not reproducible" in warning
    assert result.to_dict(timing=False)["warnings"] == [warning]
    assert "warnings" not in run_match("arena-first", "random", deals=2).to_dict()


def test_bot_spec_text_form() -> None:
    spec = BotSpec.parse("ismcts:iterations=200,exploration=0.5,mode=fast")
    assert spec.name == "ismcts"
    assert dict(spec.settings) == {"iterations": 200, "exploration": 0.5, "mode": "fast"}
    assert BotSpec.parse(spec.label) == spec
    with pytest.raises(ArenaError):
        BotSpec.parse("greedy:depth")
    with pytest.raises(ArenaError):
        BotSpec.parse(":x=1")


# --- statistics with known answers -----------------------------------------------------------


@pytest.mark.parametrize(
    ("p", "df", "want"),
    [
        (0.975, 1, 12.706204736),
        (0.975, 2, 4.302652730),
        (0.975, 4, 2.776445105),
        (0.975, 10, 2.228138852),
        (0.975, 30, 2.042272456),
        (0.995, 3, 5.840909310),
        (0.95, 20, 1.724718243),
        (0.025, 7, -2.364624252),
        (0.5, 9, 0.0),
        (0.975, 10**9, 1.959963985),
    ],
)
def test_t_quantile(p: float, df: float, want: float) -> None:
    assert t_quantile(p, df) == pytest.approx(want, abs=1e-7)


def test_mean_ci_known_answers() -> None:
    # mean 3, s = sqrt(2.5), se = sqrt(0.5), t(0.975, 4) = 2.776445
    assert mean_ci([1, 2, 3, 4, 5]) == (3.0, (1.0368, 4.9632))
    assert mean_ci([4, 4, 4]) == (4.0, (4.0, 4.0))
    assert mean_ci([7]) == (7.0, None)
    # Two values: t(0.975, 1) * se = 12.7062 * 1
    m, (lo, hi) = mean_ci([-1, 1])  # type: ignore[misc]
    assert (m, lo, hi) == (0.0, -12.7062, 12.7062)
    with pytest.raises(ValueError):
        mean_ci([])


def test_ratio_ci_is_the_t_interval_for_equal_clusters() -> None:
    values = [3.0, -1.5, 10.0, 4.0, 0.5]
    mean, se, ci = ratio_ci([2 * v for v in values], [2] * 5)
    assert (mean, ci) == mean_ci(values)
    assert se == pytest.approx(math.sqrt(sum((v - mean) ** 2 for v in values) / 4 / 5), abs=1e-4)
    # Unequal clusters: totals 10 and 2 over sizes 4 and 1 -> ratio 12/5; residuals
    # 10 - 2.4*4 = 0.4 and 2 - 2.4 = -0.4; se = sqrt(0.32 / 2) / 2.5 = 0.16.
    r, se2, ci2 = ratio_ci([10, 2], [4, 1])
    assert (r, se2) == (2.4, 0.16)
    assert ci2 == (round(2.4 - 12.7062047 * 0.16, 4), round(2.4 + 12.7062047 * 0.16, 4))


def test_wilson_known_answers() -> None:
    assert wilson(5, 10) == pytest.approx((0.236593, 0.763407), abs=1e-6)
    assert wilson(0, 10) == pytest.approx((0.0, 0.277533), abs=1e-6)
    assert wilson(10, 10) == pytest.approx((0.722467, 1.0), abs=1e-6)
    assert wilson(81, 263) == pytest.approx((0.2553, 0.3662), abs=1e-4)  # Wikipedia-style check
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson(11, 10)


def test_elo_two_players() -> None:
    # 3 wins in 4 games: the likelihood peaks where the expected score is 3/4.
    r = elo_ratings(["a", "b"], [("a", "b", 3, 4)], prior=0.0)
    assert r["a"] - r["b"] == pytest.approx(400 * math.log10(3))
    assert (r["a"] + r["b"]) / 2 == pytest.approx(1500)
    assert elo_expected(r["a"] - r["b"]) == pytest.approx(0.75)
    # The default prior adds one draw: 3.5 of 5.
    r = elo_ratings(["a", "b"], [("a", "b", 3, 4)])
    assert r["a"] - r["b"] == pytest.approx(400 * math.log10(3.5 / 1.5))
    # Draws count half; games may be split over several entries, either way round.
    r = elo_ratings(["a", "b"], [("a", "b", 1.5, 2), ("b", "a", 0.5, 2)], prior=0.0)
    assert r["a"] - r["b"] == pytest.approx(400 * math.log10(3))
    assert elo_expected(0) == 0.5


def test_elo_three_players_exact_fit_and_anchor() -> None:
    # Strengths 1 : 2 : 4 and results exactly as expected: the fit recovers 0, 120.4, 240.8.
    games = [("b", "a", 2, 3), ("c", "b", 2, 3), ("c", "a", 4, 5)]
    r = elo_ratings(["a", "b", "c"], games, prior=0.0, anchor="a")
    assert r["a"] == 0.0
    assert r["b"] == pytest.approx(400 * math.log10(2))
    assert r["c"] == pytest.approx(400 * math.log10(4))
    mean = elo_ratings(["a", "b", "c"], games, prior=0.0)
    assert sum(mean.values()) / 3 == pytest.approx(1500)
    assert mean["c"] - mean["a"] == pytest.approx(r["c"])
    pinned = elo_ratings(["a", "b", "c"], games, prior=0.0, anchor="b", anchor_rating=1000)
    assert pinned["b"] == 1000


def test_elo_degenerate_inputs() -> None:
    with pytest.raises(ValueError, match="unbounded"):
        elo_ratings(["a", "b"], [("a", "b", 4, 4)], prior=0.0)
    r = elo_ratings(["a", "b"], [("a", "b", 4, 4)])  # the prior keeps it finite: 4.5 of 5
    assert r["a"] - r["b"] == pytest.approx(400 * math.log10(9))
    with pytest.raises(ValueError, match="no game"):
        elo_ratings(["a", "b", "c"], [("a", "b", 1, 2)])
    with pytest.raises(ValueError):
        elo_ratings(["a", "b"], [("a", "b", 1, 2)], anchor="z")


def test_stats_on_simulated_data_cover_the_truth() -> None:
    # A 95% interval should contain the true mean about 95% of the time.
    rng = random.Random(1)
    hits = sum(
        lo <= 10 <= hi
        for lo, hi in (
            mean_ci([rng.gauss(10, 30) for _ in range(8)])[1] or (0, 0) for _ in range(2000)
        )
    )
    assert 0.93 < hits / 2000 < 0.97
    hits = 0
    for _ in range(2000):
        k = sum(rng.random() < 0.3 for _ in range(40))
        lo, hi = wilson(k, 40)
        hits += lo <= 0.3 <= hi
    assert 0.92 < hits / 2000 < 0.98


# --- progress bar ----------------------------------------------------------------------------


def test_plain_progress_bar() -> None:
    out = io.StringIO()
    bar = ProgressBar("arena", stream=out, enabled=True, use_rich=False)
    bar(0, 4, 0)
    bar(4, 4, 8)
    bar.close()
    text = out.getvalue()
    assert text.startswith("\rarena [") and "4/4 pairs" in text and text.endswith("\n")
    quiet = io.StringIO()
    off = ProgressBar(stream=quiet)  # a StringIO is no terminal: nothing drawn
    off(1, 2, 2)
    off.close()
    assert quiet.getvalue() == ""


# --- the command ---------------------------------------------------------------------------


def seep(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "seep", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(PLUGIN_DIR)},  # for --plugin
    )


def test_cli_json_is_one_object_with_the_keys() -> None:
    p = seep("arena", "random", "random", "--deals", "4", "--json", "--seed", "1")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)  # exactly one JSON document
    assert p.stdout.count("\n") == 1
    for key in ("deals", "mean_diff", "ci95", "bots", "seed", "rules", "seconds", "deals_per_s"):
        assert key in d
    assert d["deals"] == 4 and d["seed"] == 1 and d["bots"] == ["random", "random"]
    lo, hi = d["ci95"]
    assert lo <= d["mean_diff"] <= hi
    assert d == {**run_match("random", "random", deals=4, seed=1).to_dict(), **_timing(d)}


def _timing(d: dict[str, object]) -> dict[str, object]:
    return {k: d[k] for k in ("ms_per_move", "seconds", "deals_per_s", "workers", "backend")}


def test_cli_output_identical_for_one_and_two_workers() -> None:
    args = ("arena", strong_bot(), "random", "--deals", "8", "--seed", "3", "--no-timing")
    one = seep(*args, "--json", "--workers", "1")
    two = seep(*args, "--json", "--workers", "2")
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    assert one.stdout == two.stdout
    text = seep(*args)
    assert text.returncode == 0 and "95% CI" in text.stdout and "deals/s" not in text.stdout


def test_cli_round_robin_and_baazis() -> None:
    p = seep("arena", "--round-robin", "random", "arena-first", "--plugin", PLUGIN, "--deals", "4")
    assert p.returncode == 0, p.stderr
    assert "Elo" in p.stdout and "arena-first" in p.stdout
    p = seep("arena", "random", "random", "--baazis", "2", "--json", "--rules", "family")
    d = json.loads(p.stdout)
    assert (
        d["rules"] == "family"
        and d["baazis"]["a"] + d["baazis"]["b"] + d["baazis"]["unfinished"] == 2
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("random", "nobody", "--deals", "2"), "unknown bot 'nobody'"),
        (("random", "random", "--deals", "3"), "must be even"),
        (("random", "--deals", "2"), "exactly two bots"),
        (("random", "random", "--rules", "chess"), "unknown rules preset"),
        (("random", "random", "--rules", "{bad"), "not a JSON object"),
        (("random", "random", "--round-robin", "random", "greedy"), "not both"),
        (("random", "random", "--backend", "ray", "--workers", "0"), "workers"),
        (("random", "random", "--deals", "x"), "invalid int value"),
        (("random", "random", "--deals", "2", "--baazis", "2"), "not allowed with"),
    ],
)
def test_cli_bad_arguments_exit_2_with_one_line(args: tuple[str, ...], message: str) -> None:
    p = seep("arena", *args)
    assert p.returncode == 2
    assert p.stdout == ""
    assert p.stderr.count("\n") == 1 and message in p.stderr
    assert "Traceback" not in p.stderr


def test_cli_records(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    p = seep("arena", "random", "random", "--deals", "4", "--records", str(out), "--json")
    assert p.returncode == 0, p.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["arena"]["pair"], r["arena"]["seating"]) for r in records] == [
        (0, 0),
        (0, 1),
        (1, 0),
        (1, 1),
    ]
    for record in records:
        assert list(replay_record(record))[-1][1]["phase"] == "over"


def test_cli_illegal_move_exits_1() -> None:
    p = seep("arena", "arena-cheat", "random", "--plugin", PLUGIN, "--deals", "2")
    assert p.returncode == 1 and "illegal move" in p.stderr and "Traceback" not in p.stderr


def test_other_subcommands_still_work(capsys: pytest.CaptureFixture[str]) -> None:
    from seep.__main__ import main

    assert main(["demo", "--seed", "1"]) == 0
    assert "deal over" in capsys.readouterr().out


def test_ray_backend_without_ray_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` fail
    with pytest.raises(ArenaError, match=r"seep-game\[ray\]"):
        run_match("random", "random", deals=2, backend="ray")


@pytest.mark.parametrize(
    ("deals", "pairs"), [(2, "1 duplicate pair; 0 pairs drawn"), (6, "3 duplicate pairs; ")]
)
def test_the_text_output_counts_in_words(deals: int, pairs: str) -> None:
    """The t line says what it is ("Student's t interval over 3 duplicate pairs", never
    "t over 3 duplicates pair"), and every count agrees with its noun."""
    text = cli.format_match(run_match("random", "greedy", deals=deals, seed=1, workers=1))
    assert f"(Student's t interval over {pairs}" in text
    assert "duplicates" not in text and "(s)" not in text
    assert "1 worker," in text and "1 workers" not in text
    one = "1 shuffle," if deals == 2 else f"{deals // 2} shuffles,"
    assert one in text

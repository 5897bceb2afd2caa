"""The heuristic bot (difficulty ``medium``): a rule-based player with card counting.

Every legal move is made on the seat's public position (:meth:`seep.view.View.shell`) and the
result is scored in one ply:

* **gain**: what the move scores now for the team (card points, R5; sweeps, R38; at the end of
  the deal the leftovers, R40);
* **house equity**: each house on the floor is worth its card points, plus a little for every
  card in it, to the side that owns it, discounted by the chance that the other side takes it
  first: it holds a card of the house's value (counted from the unseen cards), or, for an
  ordinary house, a card A-4 that breaks it (R29) together with a card of the raised value.
  Cemented houses cannot be broken (R21h). So building houses of values we hold, cementing
  them, adding to the partner's houses (R33), breaking the opponents' ordinary houses (R29)
  and capturing their houses all show up here. The per-card worth rewards keeping cards off
  the loose floor, where the opponents would find captures;
* **threat**: the expected best the next player (always an opponent) can take from the floor
  left behind, sweep bonus included, with his hand a random draw from the unseen cards and
  the owners' duty (R21d) telling which values he surely holds; the second opponent's best
  counts too, less (the floor will have changed by then);
* **hand points**: a scoring card kept in hand is likely to capture later, so playing it costs
  a share of its points, more when it is thrown loose.

The bid (R13) is chosen by sampling the four face-down floor cards from the unseen cards and
scoring the best opening play (R16) for each bid value on the same samples.

>>> import random
>>> from seep.engine import Position
>>> from seep.view import View
>>> pos = Position.new_deal(5)
>>> d = HeuristicBot().choose(View.from_position(pos, pos.bidder), random.Random(0))
>>> d.move.action
'bid'
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields, replace
from typing import Any

from ..cards import (
    cards_of_mask,
    mask_of,
    mask_points,
    mask_values,
    next_seat,
    opponents_of,
    partner_of,
)
from ..codes import (
    BID,
    BREAK,
    BUILD,
    CAPTURE,
    CEMENT,
    PHASE_BID,
    PHASE_PLAY,
    THROW,
    code_action,
    code_card,
    code_house,
    code_value,
)
from ..engine import Position
from ..errors import SeepError
from ..floor import sweep_values
from ..moves import Move
from ..notation import card_text, move_words
from ..view import View
from .base import Decision
from .greedy import bid_reason
from .tactics import (
    Counting,
    Outcome,
    capture_outlook,
    capture_text,
    simulate,
    team_margin,
)

__all__ = ["HeuristicBot", "MoveFacts", "Weights", "move_facts", "play_reason"]

# Ties are broken at random among moves scoring within this of the best.
_EPS = 1e-9

# A house as (value, cards, cemented, owner seats), as in View.houses.
House = tuple[int, int, bool, int]

#: What a card play does to the public position, whatever else the hand holds: its
#: :class:`~.tactics.Outcome`, and ``(gain, value)`` for each card value that would gain
#: something on the floor left behind (A-4 always: they may break a house, R29).
MoveFacts = tuple[Outcome, list[tuple[float, int]]]


def move_facts(shell: Position, code: int, team: int, base: int, bonus: int) -> MoveFacts:
    """The :data:`MoveFacts` of ``code`` on ``shell`` (a view's public position), ``base``
    being :func:`~.tactics.team_margin` before it and ``bonus`` what a sweep by the next
    player would score."""
    out = simulate(shell, code, team, base)
    if out.over:
        return out, []
    tdp = shell.rules.ten_diamonds_points
    hp = 0
    for v, _, _, _ in out.houses:
        hp |= 1 << v
    sweepers = sweep_values(out.loose, hp) if bonus else 0
    outlook: list[tuple[float, int]] = []
    for v in range(1, 14):
        g = float(capture_outlook(out.loose, v, tdp)[0])
        if hp >> v & 1:
            g += _house_points(out.houses, v, tdp)
        if sweepers >> v & 1:
            g += bonus
        if g > 0 or v <= 4:
            outlook.append((g, v))
    return out, outlook


@dataclass(frozen=True, slots=True)
class Weights:
    """The tunable weights of :class:`HeuristicBot` (each one a setting of ``make_bot``).

    The defaults were tuned in duplicate-deal matches against the greedy bot.
    """

    threat: float = 1.3  # the next opponent's expected best capture
    opp2: float = 0.3  # the second opponent's expected best capture on the same floor
    other_holds: float = 0.5  # share of a house lost when the other side holds its value
    break_risk: float = 0.3  # share of an ordinary house lost when the other side can break it
    house_cards: float = 1.0  # worth of each card in our side's houses (off the loose floor)
    hand_points: float = 0.3  # share of a card's points lost when it leaves the hand
    throw_points: float = 0.2  # further share lost when it is thrown loose
    bid_samples: int = 16  # sampled floors per bid decision


class HeuristicBot:
    """Card counting, house play with the partner, sweep defence and bid choice, scored in
    one ply (see the module docstring). Settings: the fields of :class:`Weights`."""

    name = "heuristic"

    def __init__(self, **settings: Any) -> None:
        known = {f.name for f in fields(Weights)}
        for key in settings:
            if key not in known:
                raise SeepError(
                    f"unknown heuristic bot setting {key!r} (known: {', '.join(sorted(known))})"
                )
        self.weights = replace(Weights(), **settings)

    # --- decisions ------------------------------------------------------------------------

    def choose(self, view: View, rng: random.Random) -> Decision:
        # Sorted: the engine's move order may vary with its caches, and ties are drawn by rng.
        codes = sorted(view.legal_codes())
        if not codes:
            raise SeepError(f"seat {view.seat} has no move to make (not his turn?)")
        if view.phase_id == PHASE_BID:
            code = self._bid(view, codes, rng)
            return Decision(Move(code), bid_reason(view.hand, code, codes))
        scored = self.score_moves(view, codes)
        top = max(s for s, _, _ in scored)
        best = [item for item in scored if item[0] >= top - _EPS]
        _, out, threat = best[0] if len(best) == 1 else rng.choice(best)
        return Decision(Move(out.code), play_reason(view, out, threat, scored))

    def score_moves(
        self, view: View, codes: list[int], facts: dict[int, MoveFacts] | None = None
    ) -> list[tuple[float, Outcome, float]]:
        """``(score, outcome, threat)`` of each move of ``codes`` (card plays of the view's
        seat); the bot plays a move of the highest score.

        ``facts`` keeps what a move does to the public position (:func:`move_facts`, the
        costly half of its score) between calls on the same public position and seat, keyed
        by the code and whether a cement keeps the house's value in hand (all it depends on
        of the rest of the hand): :mod:`.likelihood` scores one past play under many candidate
        hands. The scores are the same with or without it."""
        w = self.weights
        seat = view.seat
        team = seat & 1
        counting = Counting(view)
        rules = view.rules
        tdp = rules.ten_diamonds_points
        nxt = next_seat(seat, rules.players)
        # The other opponent, who plays after our partner (none with two players, R2P1).
        opp2 = opponents_of(seat, rules.players)[-1] if rules.players == 4 else -1
        # The next player's sweep would be play plays + 2 (R38: sweep_last on play 48).
        bonus = rules.sweep_last if view.plays + 2 == 48 else rules.sweep_value
        if facts is None:
            facts = {}
        shell: Position | None = None
        base = 0
        result: list[tuple[float, Outcome, float]] = []
        for code in codes:
            card = code_card(code)
            held = mask_values(view.hand & ~(1 << card))  # values left in our hand
            # The one effect of a move that depends on the rest of the hand: an opponent who
            # cements a house joins its owners only if he keeps a card of its value (R28, A14).
            key = code << 1
            if code_action(code) == CEMENT and held >> code_value(code) & 1:
                key |= 1
            known = facts.get(key)
            if known is None:
                if shell is None:
                    shell = view.shell()
                    base = team_margin(shell, team)
                known = move_facts(shell, code, team, base, bonus)
                facts[key] = known
            out, outlook = known
            if out.over:
                result.append((float(out.gain), out, 0.0))
                continue
            equity, steal = self._equity(out.houses, seat, held, counting, tdp)
            # What each card value would take from the floor left behind (A-4 also when
            # it would break one of our ordinary houses, R29).
            gains = [(g, v) for g, v in outlook if g > 0 or steal[v] > 0]
            # The next opponent may also break one of our ordinary houses (R29).
            threat_gains = [(max(g, steal[v]) if v <= 4 else g, v) for g, v in gains]
            threat = counting.expected_best(nxt, threat_gains)
            score = out.gain + equity - w.threat * threat
            if w.opp2 and opp2 >= 0:
                score -= w.opp2 * counting.expected_best(opp2, gains)
            pts = mask_points(1 << card, tdp)
            score -= w.hand_points * pts
            if code_action(code) == THROW:
                score -= w.throw_points * pts
            result.append((score, out, threat))
        return result

    def _equity(
        self,
        houses: tuple[House, ...],
        seat: int,
        held: int,
        counting: Counting,
        tdp: int,
    ) -> tuple[float, list[float]]:
        """The houses' worth to our side, and ``steal[a]``: what the next opponent would win
        by breaking one of our ordinary houses with a card of value ``a`` (1..4, R29)."""
        w = self.weights
        players = counting.players
        partner = partner_of(seat, players)
        partners = (partner,) if partner >= 0 else ()  # none with two players (R2P1)
        opponents = opponents_of(seat, players)
        nxt = opponents[0]
        ours_mask = 1 << seat | (1 << partner if partner >= 0 else 0)
        equity = 0.0
        steal = [0.0] * 5
        for v, cards, cem, owners in houses:
            ours = bool(owners & ours_mask)
            if ours == bool(owners & ~ours_mask):
                continue  # owners on both sides (R28, A15): both hold the value
            pts = mask_points(cards, tdp)
            breakable = not cem and v < 13  # R21h; nothing is above 13
            if ours:
                p_take = counting.p_holds(opponents, 1 << v)
                p_break = 0.0
                if breakable:
                    p_break = counting.p_holds(opponents, _breakers(v)) * counting.p_holds(
                        opponents, _raised(v)
                    )
                    for a in range(1, min(4, 13 - v) + 1):
                        # He would own it (R29): our share lost and his share won.
                        s = 2.0 * pts * counting.p_holds((nxt,), 1 << (v + a))
                        steal[a] = max(steal[a], s)
                sec = 1.0 - w.other_holds * p_take - w.break_risk * p_break
                equity += (pts + w.house_cards * cards.bit_count()) * sec
            else:
                # We may capture it ourselves, or the partner may.
                p_take = 1.0 if held >> v & 1 else counting.p_holds(partners, 1 << v)
                p_break = 0.0
                if breakable:
                    if _can_break(held, v):
                        p_break = 1.0
                    else:
                        p_break = counting.p_holds(partners, _breakers(v)) * counting.p_holds(
                            partners, _raised(v)
                        )
                sec = 1.0 - w.other_holds * p_take - w.break_risk * p_break
                equity -= pts * sec
        return equity, steal

    def _bid(self, view: View, codes: list[int], rng: random.Random) -> int:
        """R13: the bid whose best opening play (R16) scores most on sampled floors (the same
        samples for every bid value, so that they compare fairly)."""
        bids = [c for c in codes if code_action(c) == BID]
        if len(bids) <= 1:
            return codes[0]  # the only bid, or the redeal (R14)
        unseen = list(cards_of_mask(view.unseen()))
        n = self.weights.bid_samples
        samples = [rng.sample(unseen, view.facedown or 4) for _ in range(max(n, 1))]
        best_code = bids[0]
        best_total = float("-inf")
        for code in bids:
            total = 0.0
            for floor in samples:
                hands = [0] * view.rules.players
                hands[view.seat] = view.hand
                loose = mask_of(floor)
                pos = Position(
                    view.rules,
                    view.dealer,
                    phase_id=PHASE_PLAY,
                    bid=code_value(code),
                    hands=hands,
                    loose=loose,
                    # The other unseen cards stand for the stock: only its size matters here.
                    stock=[c for c in unseen if not loose >> c & 1],
                )
                scored = self.score_moves(View.from_position(pos, view.seat), pos.legal_codes())
                total += max(s for s, _, _ in scored)
            if total > best_total + _EPS:
                best_total = total
                best_code = code
        return best_code


# --- helpers ------------------------------------------------------------------------------


def _breakers(v: int) -> int:
    """Values (bits) of the cards A-4 that can raise an ordinary house of v (R29)."""
    out = 0
    for a in range(1, min(4, 13 - v) + 1):
        out |= 1 << a
    return out


def _raised(v: int) -> int:
    """Values (bits) a house of v can be raised to by a break (R29)."""
    out = 0
    for a in range(1, min(4, 13 - v) + 1):
        out |= 1 << (v + a)
    return out


def _can_break(held: int, v: int) -> bool:
    """Whether a hand holding the values ``held`` (bits) could break a house of v: a card A-4
    and a card of the raised value to keep (R29)."""
    return any(held >> a & 1 and held >> (v + a) & 1 for a in range(1, min(4, 13 - v) + 1))


def _house_points(houses: tuple[House, ...], v: int, tdp: int) -> int:
    for value, cards, _, _ in houses:
        if value == v:
            return mask_points(cards, tdp)
    return 0


def _owners_before(view: View, value: int) -> int:
    for v, _, _, owners in view.houses:
        if v == value:
            return owners
    return 0


def play_reason(
    view: View, out: Outcome, threat: float, scored: list[tuple[float, Outcome, float]]
) -> str:
    """A short human reason for the chosen play ``out`` (its ``threat``: the next opponent's
    expected best capture after it; ``scored``: every play with its outcome and score), as
    the heuristic bot gives it and the ``learned`` bot, which re-ranks its plays, too."""
    code = out.code
    action = code_action(code)
    if action == CAPTURE:
        text = capture_text(out)
        if not out.sweep and not out.over and threat < 5:
            text += "; little left for the next player"
        return text
    card = card_text(code_card(code))
    if action == THROW:
        if any(code_action(s[1].code) == CAPTURE for s in scored):
            why = "safer than any capture"
        elif threat < 5:
            why = "it gives the next player little"
        else:
            why = "the least harmful card to give up"
        return f"throws {card}: {why}"
    value = code_value(code)
    mate = partner_of(view.seat, view.rules.players)
    me, partner = 1 << view.seat, (1 << mate if mate >= 0 else 0)
    if action == BUILD:
        return f"{move_words(code)}, keeping a card of {value} to take it later"
    if action == CEMENT:
        owners = _owners_before(view, value)
        if owners & me:
            return f"{move_words(code)}: my house grows and cannot be broken"
        if owners & partner:
            return f"{move_words(code)}: it joins my partner's house"
        return f"{move_words(code)}: I share the opponents' house (I hold another {value})"
    if action == BREAK:
        old = code_house(code)
        if _owners_before(view, old) & partner:
            return f"{move_words(code)}: my partner's house becomes mine, safer at {value}"
        return f"{move_words(code)}: the opponents' house becomes mine"
    return move_words(code)

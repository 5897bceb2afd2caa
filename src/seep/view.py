"""What one seat knows: its information set (docs/format.md "View"), and determinization.

A :class:`View` holds the seat's own hand, the floor (loose cards, houses with owners and the
cemented flag), every hand's size, the bid, the captured piles and sweeps, the match, and the
public history of the deal. It holds nothing that the seat has not seen: no other hand, no
stock, and during the bid phase not even the face-down floor.

:meth:`View.determinize` samples a complete :class:`~seep.engine.Position` consistent with the
view: the unseen cards are dealt at random to the other hands (with the right sizes), the
stock and the face-down floor, subject to the one public constraint of the rules: every house
owner holds a card of each of his houses' values (R21d).

>>> import random
>>> from seep.engine import Position
>>> pos = Position.new_deal(4)
>>> pos.push(pos.legal_codes()[0])            # the bid
>>> v = View.from_position(pos, seat=2)
>>> v.hand, v.hand_sizes                      # seat 2 holds nothing before play 1
(0, (0, 4, 0, 0))
>>> sample = v.determinize(random.Random(1))
>>> View.from_position(sample, seat=2) == v   # same information, other hidden cards
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import CARD_NAMES, FULL_DECK, VALUE_MASK, card_list, cards_of_mask, parse_card
from .engine import PHASE_BID, PHASE_NAMES, PHASE_OVER, Position
from .errors import InvalidPositionError, NotationError
from .format import position_from_dict
from .moves import Move
from .options import Rules

__all__ = ["View"]


@dataclass(frozen=True, slots=True)
class View:
    """One seat's information set. Build it with :meth:`from_position` or :meth:`from_dict`."""

    seat: int
    rules: Rules
    dealer: int
    phase_id: int
    bid: int
    plays: int
    hand: int
    hand_sizes: tuple[int, int, int, int]
    stock_size: int
    loose: int  # the face-up loose cards (0 while they lie face down in the bid phase)
    facedown: int  # face-down floor cards (bid phase only)
    houses: tuple[tuple[int, int, bool, int], ...]  # (value, cards, cemented, owner mask)
    captured: tuple[int, int]
    sweeps: tuple[int, int]
    last_capture: int
    match: tuple[int, tuple[int, int], int]
    history: tuple[tuple[int, int], ...] = field(default=())  # (seat, move code)

    # --- construction -------------------------------------------------------------------

    @classmethod
    def from_position(
        cls, pos: Position, seat: int, history: Sequence[tuple[int, int]] = ()
    ) -> View:
        """The view of ``seat`` of a full position; ``history`` is the deal's public moves as
        ``(seat, move code)`` pairs, when known."""
        if seat not in (0, 1, 2, 3):
            raise InvalidPositionError(f"a seat is 0..3, got {seat!r}")
        bid_phase = pos.phase_id == PHASE_BID
        return cls(
            seat=seat,
            rules=pos.rules,
            dealer=pos.dealer,
            phase_id=pos.phase_id,
            bid=pos.bid,
            plays=pos.plays,
            hand=pos.hands[seat],
            hand_sizes=(
                pos.hands[0].bit_count(),
                pos.hands[1].bit_count(),
                pos.hands[2].bit_count(),
                pos.hands[3].bit_count(),
            ),
            stock_size=len(pos.stock),
            loose=0 if bid_phase else pos.loose,
            facedown=pos.loose.bit_count() if bid_phase else 0,
            houses=tuple(pos.houses()),
            captured=(pos.captured[0], pos.captured[1]),
            sweeps=(pos.sweeps[0], pos.sweeps[1]),
            last_capture=pos.last_capture,
            match=(pos.match_diff, pos.match_baazis, pos.match_deals),
            history=tuple(history),
        )

    # --- queries --------------------------------------------------------------------------

    @property
    def phase(self) -> str:
        """``"bid"``, ``"play"`` or ``"over"``."""
        return PHASE_NAMES[self.phase_id]

    @property
    def to_move(self) -> int | None:
        """The seat to move (``None`` once the deal is over)."""
        if self.phase_id == PHASE_OVER:
            return None
        return (self.dealer + 1 + self.plays) & 3

    def is_my_turn(self) -> bool:
        """True when this seat is to move."""
        return self.to_move == self.seat

    def unseen(self) -> int:
        """The cards this seat has not seen: other hands, the stock, a face-down floor."""
        seen = self.hand | self.loose | self.captured[0] | self.captured[1]
        for _, cards, _, _ in self.houses:
            seen |= cards
        return FULL_DECK & ~seen

    def owner_needs(self) -> list[tuple[int, int]]:
        """(seat, value) pairs: another seat that must hold a card of ``value`` (R21d)."""
        if self.rules.add_retention == "team":
            return []  # an owner may rely on his partner's card (A14): nothing is certain
        needs = []
        for value, _, _, owners in self.houses:
            for s in range(4):
                if owners >> s & 1 and s != self.seat:
                    needs.append((s, value))
        return needs

    def shell(self) -> Position:
        """A position with this seat's hand and the public floor, other hands empty: enough
        for the seat's own legal moves (they depend only on his hand and the floor; under
        ``add_retention="team"`` a permission resting on the partner's card is not seen)."""
        pos = Position(self.rules, self.dealer)
        pos.phase_id = self.phase_id
        pos.bid = self.bid
        pos.plays = self.plays
        hands = [0, 0, 0, 0]
        hands[self.seat] = self.hand
        pos.hands = hands
        pos.loose = self.loose
        for value, cards, cemented, owners in self.houses:
            pos.hcards[value] = cards
            pos.hcem[value] = cemented
            pos.howners[value] = owners
            pos.hpresent |= 1 << value
        pos.captured = [self.captured[0], self.captured[1]]
        pos.sweeps = [self.sweeps[0], self.sweeps[1]]
        pos.last_capture = self.last_capture
        return pos

    def legal_codes(self) -> list[int]:
        """This seat's legal moves as codes (empty when it is not his turn)."""
        if not self.is_my_turn():
            return []
        return self.shell().legal_codes()

    def legal_moves(self) -> list[Move]:
        """This seat's legal moves."""
        return [Move(c) for c in self.legal_codes()]

    # --- determinization ------------------------------------------------------------------

    def determinize(self, rng: random.Random, tries: int = 64) -> Position:
        """A complete position consistent with this view, the hidden cards dealt at random.

        Uniform over the deals that meet the owners' duty, by rejection; if ``tries`` random
        deals all fail, the needed cards are placed first and the rest dealt at random.
        """
        unseen = list(cards_of_mask(self.unseen()))
        sizes = list(self.hand_sizes)
        sizes[self.seat] = 0
        needs = self.owner_needs()
        expected = sum(sizes) + self.stock_size + self.facedown
        if expected != len(unseen):
            raise InvalidPositionError(
                f"inconsistent view: {len(unseen)} unseen cards for {expected} hidden places"
            )
        for _ in range(tries):
            rng.shuffle(unseen)
            deal = self._lay(unseen, sizes)
            if all(deal[s] & VALUE_MASK[v] for s, v in needs):
                return self._position(deal, unseen)
        # Constructive fallback: one card of each needed value to its owner, then the rest.
        pool = unseen[:]
        rng.shuffle(pool)
        fixed: list[list[int]] = [[], [], [], []]
        for s, v in needs:
            if any((c >> 2) + 1 == v for c in fixed[s]):
                continue
            for i, c in enumerate(pool):
                if (c >> 2) + 1 == v:
                    fixed[s].append(pool.pop(i))
                    break
            else:
                raise InvalidPositionError(
                    f"inconsistent view: seat {s} owns house {v} but no card of value {v} is unseen"
                )
        order: list[int] = []
        rest = iter(pool)
        for s in range(4):
            order += fixed[s] + [next(rest) for _ in range(sizes[s] - len(fixed[s]))]
        order += list(rest)
        deal = self._lay(order, sizes)
        return self._position(deal, order)

    def _lay(self, cards: list[int], sizes: list[int]) -> list[int]:
        """Masks of the four hands taken in seat order from the front of ``cards``."""
        out = [0, 0, 0, 0]
        i = 0
        for s in range(4):
            m = 0
            for c in cards[i : i + sizes[s]]:
                m |= 1 << c
            out[s] = m
            i += sizes[s]
        return out

    def _position(self, deal: list[int], cards: list[int]) -> Position:
        pos = self.shell()
        hands = deal[:]
        hands[self.seat] = self.hand
        pos.hands = hands
        used = sum(self.hand_sizes) - self.hand_sizes[self.seat]
        rest = cards[used:]
        pos.stock = tuple(rest[: self.stock_size])
        facedown = rest[self.stock_size : self.stock_size + self.facedown]
        for c in facedown:
            pos.loose |= 1 << c
        pos.match_diff, pos.match_baazis, pos.match_deals = self.match
        return pos

    # --- docs/format.md --------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The docs/format.md view: a position's fields with other hands, the stock and a
        face-down floor replaced by their sizes, plus ``seat`` and ``history``."""
        bid_phase = self.phase_id == PHASE_BID
        hands: list[Any] = list(self.hand_sizes)
        hands[self.seat] = card_list(self.hand)
        return {
            "format": "seep/1",
            "rules": self.rules.to_dict(),
            "seat": self.seat,
            "dealer": self.dealer,
            "phase": self.phase,
            "bid": self.bid or None,
            "plays": self.plays,
            "to_move": self.to_move,
            "hands": hands,
            "stock": self.stock_size,
            "loose": self.facedown if bid_phase else card_list(self.loose),
            "houses": [
                {
                    "value": v,
                    "cards": card_list(cards),
                    "cemented": cem,
                    "owners": [s for s in range(4) if owners >> s & 1],
                }
                for v, cards, cem, owners in self.houses
            ],
            "captured": [card_list(self.captured[0]), card_list(self.captured[1])],
            "sweeps": list(self.sweeps),
            "last_capture": None if self.last_capture < 0 else self.last_capture,
            "match": {
                "diff": self.match[0],
                "baazis": list(self.match[1]),
                "deals": self.match[2],
            },
            "history": [dict(Move(code).to_dict(), seat=s) for s, code in self.history],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> View:
        """Read a docs/format.md view; raises :class:`InvalidPositionError` naming the problem.

        It is checked by determinizing it once: a view that no full position fits is refused.
        """
        if not isinstance(data, Mapping):
            raise InvalidPositionError("a view must be a JSON object")
        seat = data.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 3:
            raise InvalidPositionError(f"a view needs 'seat' 0..3, got {seat!r}")
        hands = data.get("hands")
        if not isinstance(hands, list) or len(hands) != 4:
            raise InvalidPositionError("'hands' must list four seats")
        own = hands[seat]
        if not isinstance(own, list):
            raise InvalidPositionError(f"'hands[{seat}]' must be the seat's own cards")
        sizes = []
        for s, h in enumerate(hands):
            if s == seat:
                sizes.append(len(own))
            elif isinstance(h, int) and not isinstance(h, bool) and 0 <= h <= 12:
                sizes.append(h)
            else:
                raise InvalidPositionError(f"'hands[{s}]' must be a card count 0..12, got {h!r}")
        stock = data.get("stock", 0)
        loose = data.get("loose", [])
        phase = data.get("phase")
        if not isinstance(stock, int) or isinstance(stock, bool) or not 0 <= stock <= 44:
            raise InvalidPositionError(f"'stock' in a view is a count 0..44, got {stock!r}")
        facedown = loose if phase == "bid" else 0
        if phase == "bid" and (not isinstance(loose, int) or isinstance(loose, bool)):
            raise InvalidPositionError("in the bid phase a view's 'loose' is a count")
        # Fill the hidden places with stand-in cards and validate as a full position, so the
        # view gets every check a position gets.
        try:
            hidden = FULL_DECK & ~_mask_of(own)
            for key in ("captured",):
                for pile in data.get(key, [[], []]):
                    hidden &= ~_mask_of(pile)
            if phase != "bid":
                hidden &= ~_mask_of(loose)
            for h in data.get("houses", []):
                hidden &= ~_mask_of(h.get("cards", []) if isinstance(h, Mapping) else [])
        except (NotationError, TypeError, AttributeError) as exc:
            raise InvalidPositionError(f"invalid view: {exc}") from None
        pool = [CARD_NAMES[c] for c in cards_of_mask(hidden)]
        full = {k: v for k, v in data.items() if k not in ("seat", "history")}
        full_hands: list[list[str]] = []
        i = 0
        for s in range(4):
            if s == seat:
                full_hands.append(list(own))
            else:
                full_hands.append(pool[i : i + sizes[s]])
                i += sizes[s]
        full["hands"] = full_hands
        full["stock"] = pool[i : i + stock]
        i += stock
        if phase == "bid":
            full["loose"] = pool[i : i + facedown]
            i += facedown
        if i != len(pool):
            raise InvalidPositionError(
                f"invalid view: {len(pool)} unseen cards but {i} hidden places"
            )
        # Owners' duties need the real hands, which a view does not have: determinize checks them.
        pos = position_from_dict(full, check_retention=False)
        history = []
        entries = data.get("history", [])
        if not isinstance(entries, list):
            raise InvalidPositionError("'history' must be a list of moves")
        for entry in entries:
            seat_of = entry.get("seat") if isinstance(entry, Mapping) else None
            if not isinstance(seat_of, int) or isinstance(seat_of, bool) or not 0 <= seat_of <= 3:
                raise InvalidPositionError("each history entry is a move with its 'seat' 0..3")
            history.append((seat_of, int(Move.from_dict(entry))))
        view = cls.from_position(pos, seat, history)
        view.determinize(random.Random(0))  # raises when no full position fits
        return view


def _mask_of(cards: Any) -> int:
    if not isinstance(cards, list):
        raise NotationError(f"expected a list of cards, got {cards!r}")
    m = 0
    for c in cards:
        m |= 1 << parse_card(c, strict=True)
    return m

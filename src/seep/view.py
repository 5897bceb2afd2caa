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

from .cards import (
    CARD_NAMES,
    FULL_DECK,
    VALUE,
    VALUE_MASK,
    card_list,
    cards_of_mask,
    format_cards,
    mask_of,
    parse_card,
    seat_names,
    seat_to_move,
)
from .codes import PHASE_BID, PHASE_NAMES, PHASE_OVER
from .engine import Position, house_text, table_text
from .errors import InvalidPositionError, InvalidRulesError, NotationError
from .format import position_from_dict
from .moves import Move, MoveRecord
from .options import Rules

__all__ = ["PublicView", "View"]


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
    hand_sizes: tuple[int, ...]  # one per seat: four, or two under players=2 (R2P1)
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
        n = pos.rules.players
        if not isinstance(seat, int) or not 0 <= seat < n:
            raise InvalidPositionError(f"a seat is 0..{n - 1}, got {seat!r}")
        bid_phase = pos.phase_id == PHASE_BID
        return cls(
            seat=seat,
            rules=pos.rules,
            dealer=pos.dealer,
            phase_id=pos.phase_id,
            bid=pos.bid,
            plays=pos.plays,
            hand=pos.hands[seat],
            hand_sizes=tuple([h.bit_count() for h in pos.hands]),
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
        return seat_to_move(self.dealer, self.plays, self.rules.players)

    def __str__(self) -> str:
        """What this seat sees, as text: the table of ``str(position)``
        (:func:`seep.engine.table_text`) with the other hands as their sizes and a face-down
        floor as its size; never a card the seat has not seen.

        >>> pos = Position.new_deal(1)
        >>> _ = pos.play("bid 13")
        >>> print(View.from_position(pos, seat=1))
        Seep, W's view, standard rules: play phase, 0 of 48 plays, bid 13 by W, dealer N, W to move
        floor  AD 3C 5C TD
        N      0 cards
        W      3H 6D TH KH
        S      0 cards
        E      0 cards
        stock  44 cards
        NS     0 cards captured, 0 points, 0 sweeps: 0
        WE     0 cards captured, 0 points, 0 sweeps: 0
        match  0 deals played, diff +0, baazis 0-0
        """
        names = seat_names(self.rules.players)
        floor = []
        if self.loose:
            floor.append(format_cards(self.loose))
        if self.facedown:
            floor.append(f"{self.facedown} cards face down")
        floor += [house_text(h, names) for h in self.houses]
        hands = [
            (format_cards(self.hand) or "-") if s == self.seat else f"{size} cards"
            for s, size in enumerate(self.hand_sizes)
        ]
        return table_text(
            f"Seep, {names[self.seat]}'s view",
            self.rules,
            (self.dealer, self.phase_id, self.bid, self.plays),
            hands,
            floor,
            self.stock_size,
            self.captured,
            self.sweeps,
            self.match,
        )

    def _repr_svg_(self) -> str:
        """What this seat sees, as SVG (:func:`seep.svg.view`), which notebooks show."""
        from .svg import view as svg_view

        return svg_view(self)

    def is_my_turn(self) -> bool:
        """True when this seat is to move."""
        return self.to_move == self.seat

    def unseen(self) -> int:
        """The cards this seat has not seen: other hands, the stock (with two players, the
        half-time cards too, R2P7), a face-down floor."""
        seen = self.hand | self.loose | self.captured[0] | self.captured[1]
        for _, cards, _, _ in self.houses:
            seen |= cards
        return FULL_DECK & ~seen

    def owner_needs(self) -> list[tuple[int, int]]:
        """(seat, value) pairs: another seat that must hold a card of ``value`` (R21d; under
        both ``add_retention`` settings every owner holds his value, docs/rules.md §3). Only the
        hand counts, never the stock (R2P8)."""
        needs = []
        for value, _, _, owners in self.houses:
            for s in range(len(self.hand_sizes)):
                if owners >> s & 1 and s != self.seat:
                    needs.append((s, value))
        return needs

    def shell(self) -> Position:
        """A position with this seat's hand and the public floor, other hands empty: enough
        for the seat's own legal moves (they depend only on his hand and the floor; under
        ``add_retention="team"`` a permission resting on the partner's card is not seen)."""
        hands = [0] * len(self.hand_sizes)
        hands[self.seat] = self.hand
        return self._position(hands, (), self.loose)

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
        deals all fail, the needed cards are placed first and the rest dealt at random. With
        two players the unseen cards go to the opponent's hand and the half-time stock (R2P7),
        the owner's duty binding the hand only (R2P8).
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
                return self._complete(deal, unseen)
        # Constructive fallback: one card of each needed value to its owner, then the rest.
        pool = unseen[:]
        rng.shuffle(pool)
        n = len(sizes)
        fixed: list[list[int]] = [[] for _ in range(n)]
        for s, v in needs:
            if any(VALUE[c] == v for c in fixed[s]):
                continue
            for i, c in enumerate(pool):
                if VALUE[c] == v:
                    fixed[s].append(pool.pop(i))
                    break
            else:
                raise InvalidPositionError(
                    f"inconsistent view: seat {s} owns house {v} but no card of value {v} is unseen"
                )
        order: list[int] = []
        rest = iter(pool)
        for s in range(n):
            order += fixed[s] + [next(rest) for _ in range(sizes[s] - len(fixed[s]))]
        order += list(rest)
        deal = self._lay(order, sizes)
        return self._complete(deal, order)

    def _lay(self, cards: list[int], sizes: list[int]) -> list[int]:
        """Masks of the hands taken in seat order from the front of ``cards``."""
        out = [0] * len(sizes)
        i = 0
        for s in range(len(sizes)):
            m = 0
            for c in cards[i : i + sizes[s]]:
                m |= 1 << c
            out[s] = m
            i += sizes[s]
        return out

    def _complete(self, deal: list[int], cards: list[int]) -> Position:
        """The position of the hidden hands ``deal``; the stock and a face-down floor are the
        rest of ``cards``, in order, after the hands' cards."""
        hands = deal[:]
        hands[self.seat] = self.hand
        used = sum(self.hand_sizes) - self.hand_sizes[self.seat]
        rest = cards[used:]
        facedown = mask_of(rest[self.stock_size : self.stock_size + self.facedown])
        return self._position(hands, rest[: self.stock_size], self.loose | facedown)

    def _position(self, hands: list[int], stock: Sequence[int], loose: int) -> Position:
        return Position(
            self.rules,
            self.dealer,
            phase_id=self.phase_id,
            bid=self.bid,
            plays=self.plays,
            hands=hands,
            stock=stock,
            loose=loose,
            houses=self.houses,
            captured=self.captured,
            sweeps=self.sweeps,
            last_capture=self.last_capture,
            match=self.match,
        )

    # --- docs/format.md --------------------------------------------------------------------------

    def to_dict(self, *, history: bool = True) -> dict[str, Any]:
        """The docs/format.md view: a position's fields with other hands, the stock and a
        face-down floor replaced by their sizes, plus ``seat`` and ``history`` (left out with
        ``history=False``, for a writer that keeps the deal's history serialised)."""
        hands: list[Any] = list(self.hand_sizes)
        hands[self.seat] = card_list(self.hand)
        return _view_dict(self, self.seat, hands, history)

    def public(self) -> PublicView:
        """What everyone sees of this view's deal: a spectator's view."""
        return PublicView(
            rules=self.rules,
            dealer=self.dealer,
            phase_id=self.phase_id,
            bid=self.bid,
            plays=self.plays,
            hand_sizes=self.hand_sizes,
            stock_size=self.stock_size,
            loose=self.loose,
            facedown=self.facedown,
            houses=self.houses,
            captured=self.captured,
            sweeps=self.sweeps,
            last_capture=self.last_capture,
            match=self.match,
            history=self.history,
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> View:
        """Read a docs/format.md view; raises :class:`InvalidPositionError` naming the problem.

        It is checked by determinizing it once: a view that no full position fits is refused.
        """
        if not isinstance(data, Mapping):
            raise InvalidPositionError("a view must be a JSON object")
        try:
            n = Rules.parse(data.get("rules", "standard")).players
        except InvalidRulesError as exc:
            raise InvalidPositionError(f"invalid view: rules: {exc}") from None
        seat = data.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n:
            raise InvalidPositionError(f"a view needs 'seat' 0..{n - 1}, got {seat!r}")
        hands = data.get("hands")
        if not isinstance(hands, list) or len(hands) != n:
            raise InvalidPositionError(f"'hands' must list {n} seats (rules.players is {n})")
        most = 12 if n == 4 else 24
        own = hands[seat]
        if not isinstance(own, list):
            raise InvalidPositionError(f"'hands[{seat}]' must be the seat's own cards")
        sizes = []
        for s, h in enumerate(hands):
            if s == seat:
                sizes.append(len(own))
            elif isinstance(h, int) and not isinstance(h, bool) and 0 <= h <= most:
                sizes.append(h)
            else:
                raise InvalidPositionError(
                    f"'hands[{s}]' must be a card count 0..{most}, got {h!r}"
                )
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
        except (NotationError, TypeError, AttributeError) as err:
            # Not `exc` again: compiled by mypyc, one name has one type in a function.
            raise InvalidPositionError(f"invalid view: {err}") from None
        pool = [CARD_NAMES[c] for c in cards_of_mask(hidden)]
        full = {k: v for k, v in data.items() if k not in ("seat", "history")}
        full_hands: list[list[str]] = []
        i = 0
        for s in range(n):
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
            if not isinstance(seat_of, int) or isinstance(seat_of, bool) or not 0 <= seat_of < n:
                raise InvalidPositionError(
                    f"each history entry is a move with its 'seat' 0..{n - 1}"
                )
            history.append((seat_of, int(Move.from_dict(entry))))
        view = cls.from_position(pos, seat, history)
        view.determinize(random.Random(0))  # raises when no full position fits
        return view


@dataclass(frozen=True, slots=True)
class PublicView:
    """The public information of a deal: what a spectator, who holds no seat, sees. A
    :class:`View` without a hand: every hand is its size, and ``seat`` is ``None`` in its
    docs/format.md dict (docs/web.md "state": a spectator's ``view``)."""

    rules: Rules
    dealer: int
    phase_id: int
    bid: int
    plays: int
    hand_sizes: tuple[int, ...]
    stock_size: int
    loose: int
    facedown: int
    houses: tuple[tuple[int, int, bool, int], ...]
    captured: tuple[int, int]
    sweeps: tuple[int, int]
    last_capture: int
    match: tuple[int, tuple[int, int], int]
    history: tuple[tuple[int, int], ...] = field(default=())

    @classmethod
    def from_position(cls, pos: Position, history: Sequence[tuple[int, int]] = ()) -> PublicView:
        """The public view of a full position; ``history`` as for :meth:`View.from_position`."""
        bid_phase = pos.phase_id == PHASE_BID
        return cls(
            rules=pos.rules,
            dealer=pos.dealer,
            phase_id=pos.phase_id,
            bid=pos.bid,
            plays=pos.plays,
            hand_sizes=tuple([h.bit_count() for h in pos.hands]),
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

    @property
    def phase(self) -> str:
        """``"bid"``, ``"play"`` or ``"over"``."""
        return PHASE_NAMES[self.phase_id]

    @property
    def to_move(self) -> int | None:
        """The seat to move (``None`` once the deal is over)."""
        if self.phase_id == PHASE_OVER:
            return None
        return seat_to_move(self.dealer, self.plays, self.rules.players)

    def to_dict(self, *, history: bool = True) -> dict[str, Any]:
        """A view's docs/format.md dict with every hand as its size and ``seat`` ``None``."""
        return _view_dict(self, None, list(self.hand_sizes), history)


def _view_dict(
    v: View | PublicView, seat: int | None, hands: list[Any], history: bool
) -> dict[str, Any]:
    """The docs/format.md fields of a view (one seat's or the public one), in their order."""
    bid_phase = v.phase_id == PHASE_BID
    n = len(v.hand_sizes)
    out: dict[str, Any] = {
        "format": "seep/1",
        "rules": v.rules.to_dict(),
        "seat": seat,
        "dealer": v.dealer,
        "phase": v.phase,
        "bid": v.bid or None,
        "plays": v.plays,
        "to_move": v.to_move,
        "hands": hands,
        "stock": v.stock_size,
        "loose": v.facedown if bid_phase else card_list(v.loose),
        "houses": [
            {
                "value": value,
                "cards": card_list(cards),
                "cemented": cem,
                "owners": [s for s in range(n) if owners >> s & 1],
            }
            for value, cards, cem, owners in v.houses
        ],
        "captured": [card_list(v.captured[0]), card_list(v.captured[1])],
        "sweeps": list(v.sweeps),
        "last_capture": None if v.last_capture < 0 else v.last_capture,
        "match": {"diff": v.match[0], "baazis": list(v.match[1]), "deals": v.match[2]},
    }
    if history:
        out["history"] = [MoveRecord(s, code).to_dict() for s, code in v.history]
    return out


def _mask_of(cards: Any) -> int:
    if not isinstance(cards, list):
        raise NotationError(f"expected a list of cards, got {cards!r}")
    m = 0
    for c in cards:
        m |= 1 << parse_card(c, strict=True)
    return m

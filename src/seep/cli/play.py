"""``seep play``: a match in the terminal, you in one seat and bots in the other three.

The core decides everything: the game runs in a :class:`~seep.session.Session` (the legal
moves come from its position, a typed move is checked by it, with the engine's message saying
why it is illegal; it knows when a deal and the match are over, the history, the last moves and
the record), the bots see only their seat's :class:`~seep.view.View`. This module asks and
shows.
"""

from __future__ import annotations

import json
import random
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from time import sleep
from typing import Any

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.text import Text

from ..bots import make_bot
from ..cards import card_value, cards_of_mask, parse_card, partner_of
from ..errors import NotationError, SeepError
from ..moves import Move
from ..notation import format_move, parse_move
from ..session import Session
from ..verify import check
from ..view import View
from .names import card_name, in_card_names
from .narrow import describe_move, next_step
from .refusals import refusal_text
from .render import (
    deal_summary,
    plural,
    position_view,
    rules_label,
    seat_full,
    seat_label,
    team_names,
)
from .replay import RECORD_ERRORS, RecordError, read_record, record_error

__all__ = ["Game", "Settings", "resume"]

# Each entry on a line of its own, none wider than 80 columns: a narrow terminal wraps only
# the paragraph (at word breaks), never an entry in the middle.
HELP = (
    "Type the number of a card from your hand (or its name, like 9S), then the number of one "
    "of its uses (a card with one use is played at once). To bid, type the value or the card "
    "(its number or name). A whole move can be typed in notation:\n"
    "  9S x 4H 5D   capture 4H and 5D with 9S\n"
    "  4D =13 9H    build a house of 13 on 9H with 4D\n"
    "  TS +10       add TS to the house of 10\n"
    "  2H ^9=11     break the house of 9 up to 11 with 2H\n"
    "  bid 11       bid 11\n"
    "Keys:\n"
    "  ?  hint: what a bot would play, and why\n"
    "  u  undo your last move (practice games)\n"
    "  s  save the game to a file\n"
    "  t  show the table again\n"
    "  b  back (while choosing a use)\n"
    "  q  quit\n"
)
TWO_PLAYER_HELP = (
    "Seep for two (docs/rules.md §12): the bidder (the dealer's opponent) gets 4 cards and bids; "
    "after his opening play he gets 8 more and the dealer 12, and the dealer plays next. "
    "After play 24 both hands are empty and 12 more cards each are dealt at once; the bidder "
    "leads again. Only cards in your hand count for keeping a house, so every house is taken "
    "by play 24. You may add to the opponent's house (you then share it) but never break your "
    "own; a lead of 100 wins the baazi, and the player behind deals next.\n"
)


@dataclass(frozen=True)
class Settings:
    """The options of ``seep play``."""

    seed: int
    preset: str = "standard"
    bots: str = "medium"
    seat: int = 2
    deals: int | None = None  # play this many deals, or
    baazis: int = 1  # until this many baazis are won (when deals is None)
    practice: bool = False
    save: str | None = None
    delay: float = 0.6  # seconds after each bot move, so a person can follow
    hint_bot: str = "medium"
    plain: bool = False  # print the table anew each turn instead of redrawing it in place
    load: str | None = None  # the file the game was resumed from


# How many recent moves are listed under the table when it is redrawn in place.
RECENT = 6


class Quit(Exception):
    """The player asked to stop."""


class Game:
    """A running ``seep play`` session; :meth:`run` plays it to the end.

    ``session`` is a game to resume (see :func:`resume`); by default a new match is dealt
    from the settings. On a terminal the table is redrawn in place (a rich ``Live`` display
    while the bots play, the screen cleared once after each of your moves) with the latest
    moves listed under it; with ``settings.plain``, or when the console is not a terminal,
    the table is printed anew at each of your turns and every move on a line of its own.
    """

    def __init__(
        self,
        settings: Settings,
        console: Console,
        ask: Callable[[str], str] | None = None,
        session: Session | None = None,
    ) -> None:
        self.settings = settings
        self.console = console
        self.ask_fn = ask or (lambda prompt: console.input(Text(prompt, style="bold cyan")))
        self.you = settings.seat
        if session is None:
            session = Session(
                settings.preset,
                seed=settings.seed,
                deals=settings.deals,
                baazis=settings.baazis if settings.deals is None else None,
            )
        self.session = session
        self.players = self.session.rules.players  # 4, or 2 (docs/rules.md §12)
        self.bots = {s: make_bot(settings.bots) for s in range(self.players) if s != self.you}
        # Cursor movement needs a real terminal; a pipe or a dumb terminal gets plain lines.
        self.plain = settings.plain or not console.is_terminal or console.is_dumb_terminal
        self.live: Live | None = None
        self.recent: deque[Text] = deque(maxlen=RECENT)
        # The record last saved and where: quitting right after a save does not ask again.
        self.saved: tuple[dict[str, Any], str] | None = None

    # --- helpers --------------------------------------------------------------------------

    def ask(self, prompt: str) -> str:
        """One line of input, stripped (EOFError and KeyboardInterrupt propagate)."""
        self._settle()
        return self.ask_fn(prompt).strip()

    def _settle(self) -> None:
        """Stop redrawing in place: what comes next (a prompt, a message) goes below."""
        if self.live is not None:
            self.live.stop()
            self.live = None

    def print(self, *items: RenderableType) -> None:
        """Print below the table (an empty call prints an empty line)."""
        self._settle()
        self.console.print(*items)

    def say(self, text: str, style: str = "") -> None:
        """Print a line of plain text (no markup: card names and brackets stay as typed)."""
        self.print(Text(text, style=style))

    def note(self, text: str, style: str = "") -> None:
        """A line about the game (a move, an undo): printed at once in plain mode, else kept
        in the recent lines under the table (the next redraw shows it)."""
        if self.plain:
            self.say(text, style)
        else:
            self.recent.append(Text(text, style=style))

    def event(self, text: str, style: str = "") -> None:
        """A :meth:`note` shown at once: in place, the table is redrawn with it."""
        self.note(text, style)
        if not self.plain:
            self.show()

    def _rng(self, seat: int, purpose: str) -> random.Random:
        """A bot's own RNG for one decision: a pure function of the game seed and the point of
        the game, so a move taken back and made again gets the same replies."""
        session = self.session
        pos = session.position
        key = f"seep-cli:{self.settings.seed}:{purpose}:{session.deal_number - 1}:"
        key += f"{pos.plays}:{pos.phase}:{seat}:{len(session.history)}"
        return random.Random(key)

    def last_moves(self) -> list[str]:
        """Each seat's latest move in this deal, in notation (with the sweep it scored)."""
        return [
            ""
            if last is None
            else format_move(last.code) + (f" (sweep +{last.sweep})" if last.sweep else "")
            for last in self.session.last_moves()
        ]

    def show(self) -> None:
        """Draw the table as the player sees it: printed below in plain mode; else redrawn in
        place, with the recent moves under it."""
        title = "Seep" + (" · practice" if self.settings.practice else "")
        table = position_view(
            self.session.position,
            you=self.you,
            last_moves=self.last_moves(),
            deal_number=self.session.deal_number,
            title=title,
            playable=self._playable(),
        )
        if self.plain:
            self.print()
            self.print(table)
            return
        screen = Group(table, *self._recent_lines(table))
        if self.live is None:
            # A fresh screen once a round, after your move; the bots' moves then redraw the
            # same lines (Live moves the cursor back up over what it drew).
            self.console.clear()
            self.live = Live(
                screen,
                console=self.console,
                auto_refresh=False,
                vertical_overflow="visible",
            )
            self.live.start()
        else:
            self.live.update(screen, refresh=True)

    def _recent_lines(self, table: RenderableType) -> list[Text]:
        """The recent moves that fit under the table with a line left for the prompt, so a
        redraw never scrolls the top of the table away."""
        options = self.console.options
        used = len(self.console.render_lines(table, options, pad=False))
        room = self.console.height - used - 2  # a blank line and the prompt
        lines: list[Text] = []
        for line in reversed(self.recent):
            room -= len(self.console.render_lines(line, options, pad=False))
            if room < 0:
                break
            lines.append(line)
        if not lines:
            return []
        return [Text(""), *reversed(lines)]

    def _playable(self) -> int | None:
        """The cards of your hand that have a legal use now (counted, never listed: a huge
        floor has millions of moves)."""
        pos = self.session.position
        if pos.to_move != self.you:
            return None
        return pos.legal.playable()

    def make(self, move: int) -> None:
        """Make a move for the seat to move (checked by the session) and say it (yours too:
        a card with a single use is played without a list, so the echo says what it did)."""
        seat, _ = self.session.play(int(move))
        last = self.session.last_moves()[seat]
        note = f"sweep +{last.sweep}" if last is not None and last.sweep else ""
        who = seat_label(seat, self.you, self.players)
        if Move(move).is_play():
            text = f"{who} plays {format_move(move)}   {describe_move(Move(move))}"
        else:  # a bid or a redeal: the words say it all
            text = f"{who}: {describe_move(Move(move))}"
        text += f"  ** {note} **" if note else ""
        self.event(text, "bold" if seat == self.you else "")

    # --- saving ---------------------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """The docs/format.md record of the game so far, the deal in play included, with a
        ``play`` entry holding what the record does not (your seat, the bots, the match
        length, practice, the hint bot) so that ``seep play --load`` resumes the same game.
        Other readers ignore the entry."""
        s = self.settings
        record = self.session.to_record()
        deals = record.pop("deals")
        if len(deals) < self.session.deal_number:
            # A deal dealt but not begun (the session leaves it out): saved as it stands, so
            # that the game resumes at this bid rather than at the end of the deal before.
            deals.append({"start": self.session.position.to_dict(), "moves": []})
        record["play"] = {
            "seat": self.you,
            "bots": s.bots,
            "deals": self.session.deals_to_play,
            "baazis": self.session.baazis_to_play,
            "practice": s.practice,
            "hint_bot": s.hint_bot,
        }
        record["deals"] = deals  # last: the entry stays readable at the top of the file
        return record

    def save(self, path: str | None = None) -> bool:
        """Write the game record so far (:meth:`record`); asks for a file name if none."""
        default = self.settings.save or self.settings.load or f"seep-{self.settings.seed}.json"
        if path is None:
            path = self.ask(f"Save to which file? [{default}] ") or default
        record = self.record()
        try:
            Path(path).write_text(json.dumps(record, indent=1) + "\n")
        except OSError as exc:
            self.say(f"Could not save to {path}: {exc.strerror or exc}", "bold red")
            return False
        self.saved = (record, path)
        self.say(f"Saved the game to {path}", "green")
        return True

    def offer_save(self, question: str) -> None:
        """Ask whether to save (used on quitting and at the end), unless the game is saved
        as it stands."""
        if self.saved is not None and self.saved[0] == self.record():
            self.say(f"The game is saved in {self.saved[1]} (no move since).", "green")
            return
        while True:
            answer = self.ask(f"{question} [y/n] ").lower()
            if answer in ("n", "no"):
                return
            if answer in ("y", "yes") and self.save():
                return
            if answer not in ("y", "yes"):
                self.say("Please answer y or n.")

    # --- the player's turn ---------------------------------------------------------------

    def hint(self) -> None:
        """Show what the hint bot would play here, with its reason."""
        view = View.from_position(self.session.position, self.you, self.session.history)
        decision = make_bot(self.settings.hint_bot).choose(view, self._rng(self.you, "hint"))
        # The bots word their reasons with suit symbols; the terminal names cards as typed.
        self.say(
            f"Hint: {format_move(decision.move)}   ({describe_move(decision.move)}): "
            f"{in_card_names(decision.reason)}",
            "yellow",
        )

    def undo(self) -> bool:
        """Take back your last move and the bots' replies after it (from the deal before
        when you have not moved in this one yet)."""
        if not self.settings.practice:
            self.say("Undo is for practice games: start one with seep play --practice.", "red")
            return False
        session = self.session
        mine = None
        for d in range(session.deal_number - 1, -1, -1):
            mine = next((c for s, c in reversed(session.deal_history(d)) if s == self.you), None)
            if mine is not None:
                break
        if mine is None:
            self.say("You have made no move yet: nothing to undo.", "red")
            return False
        deal = session.deal_number
        replies = session.undo_to(self.you) - 1
        extra = f" and {replies} bot repl{'y' if replies == 1 else 'ies'}" if replies else ""
        back = f" (back in deal {session.deal_number})" if session.deal_number != deal else ""
        self.event(f"Took back your {format_move(mine)}{extra}{back}.", "green")
        return True

    def _card_uses(self, card: int) -> list[Move] | None:
        """The legal uses of a card of your hand, or None (with a message) if it has none."""
        pos = self.session.position
        if not pos.hands[self.you] >> card & 1:
            self.say(f"You do not hold {card_name(card)}.", "red")
            return None
        # Only this card's moves are generated, however large the floor (seep.counting).
        legal = pos.legal
        uses = [Move(c) for c in legal.of_card(card)]
        if uses:
            return uses
        throw = Move.throw(card)
        refusal = legal.why_dead(card)  # the checker's reason even a throw is illegal
        if refusal is None:  # pragma: no cover - a legal throw would be among the uses
            self.say(f"You cannot play {card_name(card)} now.", "red")
        else:
            now = f"play {card_name(card)} now"
            self.say(refusal_text(refusal, throw, self.you, self.players, now), "red")
        return None

    def _typed_move(self, text: str) -> Move | None:
        """A move typed in notation, checked by the engine; None (with the reason, worded for
        you from the engine's refusal: the rule and its facts) if not."""
        try:
            code = parse_move(text)
        except NotationError as exc:
            self.say(f"Cannot read {text!r} as a move: {exc}", "red")
            self.say("(type h for help)", "dim")
            return None
        return self._checked(code)

    def _checked(self, code: int, attempt: str | None = None) -> Move | None:
        """``code`` if the engine allows it; else None, with its refusal worded for you."""
        refusal = check(self.session.position, code)
        if refusal is not None:
            self.say(refusal_text(refusal, code, self.you, self.players, attempt), "red")
            self.say("(type h for help)", "dim")
            return None
        try:
            move = Move(self.session.verify(code))
        except SeepError as exc:  # pragma: no cover - the engine's check found it legal
            self.say(f"You cannot make that move: {exc}", "red")
            return None
        return move

    def turn(self) -> None:
        """Ask the player for a move until a legal one is made (raises Quit)."""
        self.show()
        pos = self.session.position
        # The narrowing in progress: each entry the moves still possible after one answer.
        stack: list[list[Move]] = []
        show_step = True
        while True:
            pos = self.session.position
            if stack and show_step:
                step = next_step(stack[-1])
                self.say(step.question, "bold")
                for i, opt in enumerate(step.options, 1):
                    self.say(f"  {i:>2}. {opt.label}")
            show_step = False
            if stack:
                prompt = "Choose a number (b: back, h: help)> "
            elif pos.phase == "bid":
                prompt = self._bid_prompt()
            else:
                prompt = "Your move: card number or name (? hint, h help)> "
            text = self.ask(prompt)
            low = text.lower()
            if low in ("q", "quit", "exit"):
                self.offer_save("Save the game before quitting?")
                raise Quit
            if low in ("?", "hint"):
                self.hint()
                continue
            if low in ("h", "help"):
                self.say(HELP + (TWO_PLAYER_HELP if self.players == 2 else ""))
                continue
            if low in ("s", "save"):
                self.save()
                continue
            if low in ("t", "table"):
                self.show()
                show_step = True
                continue
            if low in ("u", "undo"):
                if self.undo():
                    return  # the main loop draws the table again, your turn once more
                continue
            if low in ("b", "back"):
                if stack:
                    stack.pop()
                    show_step = True
                else:
                    self.say("Nothing to go back to.", "dim")
                continue
            move: Move | None = None
            if pos.phase == "bid":  # a bid is one answer, never a list (nor a card's uses)
                move = self._bid_move(text)
                if move is not None:
                    self.make(move)
                    return
                continue
            if not text:
                if stack:
                    show_step = True
                else:
                    self.say("Type a card (its number or name), or h for help.", "dim")
                continue
            if stack and text.isdigit():
                step = next_step(stack[-1])
                n = int(text)
                if not 1 <= n <= len(step.options):
                    self.say(f"Please choose a number from 1 to {len(step.options)}.", "red")
                    continue
                chosen = step.options[n - 1]
                if len(chosen.moves) > 1:
                    stack.append(list(chosen.moves))
                    show_step = True
                    continue
                move = chosen.moves[0]  # a single move left: played, not listed alone
            elif not stack and (text.isdigit() or _is_card(text)):
                card = self._pick_card(text)
                uses = None if card is None else self._card_uses(card)
                if uses is None:
                    continue
                if len(uses) > 1:
                    stack = [uses]
                    show_step = True
                    continue
                move = uses[0]  # the card's only use: played at once (make() echoes it)
            else:
                move = self._typed_move(text)
            if move is not None:
                self.make(move)
                return

    def _bid_prompt(self) -> str:
        """The bidder's prompt, naming the bids the engine allows (R13; R14 a redeal)."""
        moves = self.session.position.legal_moves()
        values = [m.value for m in moves if m.action == "bid"]
        if not values:  # no card above 8: the hand is shown and dealt again (R14)
            return "Your bid (no card above 8: press Enter to redeal; ? hint, h help)> "
        if len(moves) == 1:
            return f"Your bid ({values[0]} only: press Enter; ? hint, h help)> "
        listed = ", ".join(map(str, values[:-1])) + f" or {values[-1]}"
        return f"Your bid ({listed}: the value, or a card's number or name; ? hint, h help)> "

    def _bid_move(self, text: str) -> Move | None:
        """The bid typed: its value (9-13), a card of the hand (its number or name: the bid is
        its value), Enter when only one move is possible, or notation (``bid 11``,
        ``redeal``); None (with the reason) if it is not a legal bid."""
        moves = self.session.position.legal_moves()
        if not text:
            if len(moves) == 1:
                return moves[0]
            self.say("Type the value of your bid, or a card (its number or name).", "dim")
            return None
        if text.isdigit() and 9 <= int(text) <= 13:  # a value: the bidder holds 4 cards (R12)
            return self._checked(Move.bid(int(text)))
        if text.isdigit() or _is_card(text):
            card = self._pick_card(text)
            if card is None:
                return None
            if not self.session.position.hands[self.you] >> card & 1:
                self.say(f"You do not hold {card_name(card)}.", "red")
                return None
            return self._checked(Move.bid(card_value(card)), f"bid {card_name(card)}")
        return self._typed_move(text)

    def _pick_card(self, text: str) -> int | None:
        """A card of your hand by its number in the sorted hand or by its name."""
        hand = list(cards_of_mask(self.session.position.hands[self.you]))
        if text.isdigit():
            n = int(text)
            if not 1 <= n <= len(hand):
                if not hand:
                    self.say("You hold no cards yet.", "red")
                else:
                    self.say(f"Your cards are numbered 1 to {len(hand)}.", "red")
                return None
            return hand[n - 1]
        return parse_card(text)

    # --- the match ------------------------------------------------------------------------

    def bot_turn(self) -> None:
        """Let the bot of the seat to move play."""
        pos = self.session.position
        seat = pos.to_move
        assert seat is not None
        view = View.from_position(pos, seat, self.session.history)
        decision = self.bots[seat].choose(view, self._rng(seat, "bot"))
        self.make(decision.move)
        if self.settings.delay > 0:
            sleep(self.settings.delay)

    def finish_deal(self) -> bool:
        """Show the finished deal's outcome, then deal the next; True when the match is over."""
        self.show()
        out = self.session.outcome()
        assert out is not None
        self.print()
        self.say(f"Deal {out.deal} is over.", "bold")
        self.print(deal_summary(out.result, self.you, self.players))
        teams = team_names(self.players)
        if out.winner is not None:
            t = out.winner
            if self.players == 2:
                self.say("You win the baazi!" if t == self.you else f"{teams[t]} wins the baazi.")
            else:
                who = "your team" if t == self.you & 1 else "the other team"
                self.say(f"{teams[t]} ({who}) win the baazi!", "bold green")
        self.say(
            f"Baazis won: {teams[0]} {out.baazis[0]}, {teams[1]} {out.baazis[1]}.  Baazi "
            f"difference {teams[0]}-{teams[1]} now {out.diff:+d}."
        )
        if out.match_over:
            self.final_results()
            return True
        self.ask("Press Enter for the next deal ")
        self.session.start_next_deal()
        self.recent.clear()
        return False

    def final_results(self) -> None:
        """The match's totals, then the record is saved or offered."""
        totals = [0, 0]
        for result in self.session.results():
            for t in (0, 1):
                totals[t] += result["score"][t]
        standing = self.session.standing()
        baazis = standing.baazis
        self.print()
        self.say("The match is over.", "bold")
        teams = team_names(self.players)
        self.say(
            f"Deals played: {standing.deals}.  Total scores: {teams[0]} {totals[0]}, "
            f"{teams[1]} {totals[1]}.  Baazis: {teams[0]} {baazis[0]}, {teams[1]} {baazis[1]}."
        )
        mine, theirs = baazis[self.you & 1], baazis[1 - (self.you & 1)]
        if mine != theirs:
            self.say("You win!" if mine > theirs else "You lose.", "bold")
        if self.settings.save:
            self.save(self.settings.save)
        else:
            self.offer_save("Save the game?")

    def run(self) -> int:
        """Play the match; returns the exit status."""
        s = self.settings
        if s.deals is not None:
            goal = plural(s.deals, "deal", "deals")
        else:
            goal = f"until {plural(s.baazis, 'baazi is', 'baazis are')} won"
        if self.players == 2:
            who = (
                f"Seep for two: you are {seat_full(self.you, 2)} against the {s.bots} bot "
                f"{seat_full(1 - self.you, 2)}; 12 cards each, then 12 more after play 24."
            )
        else:
            opponents = " and ".join(seat_full(t) for t in range(4) if t & 1 != self.you & 1)
            who = (
                f"Seep: you are {seat_full(self.you)}; {s.bots} bots play your partner "
                f"{seat_full(partner_of(self.you))} and your opponents {opponents}."
            )
        self.note(
            f"{who} Rules {s.preset}, "
            f"{goal}, seed {s.seed}{', practice (undo allowed)' if s.practice else ''}. "
            "Type h for help.",
            "bold",
        )
        if s.load:
            pos = self.session.position
            where = "its end" if pos.is_over() else f"play {pos.plays} of 48"
            if pos.phase == "bid":
                where = "the bid"
            self.note(f"Resumed {s.load}: deal {self.session.deal_number}, at {where}.", "bold")
        try:
            while True:
                pos = self.session.position
                if pos.is_over():
                    if self.finish_deal():
                        return 0
                elif pos.to_move == self.you:
                    self.turn()
                else:
                    self.bot_turn()
        except Quit:
            self.say("Goodbye.")
            return 0
        finally:
            self._settle()  # the cursor back, and what follows below the table


def _is_card(text: str) -> bool:
    try:
        parse_card(text)
    except NotationError:
        return False
    return True


# What a record's ``play`` entry holds (Game.record writes it): the settings of seep play
# that the docs/format.md record itself does not (its rules and seed are the record's own).
PLAY_ENTRY = ("seat", "bots", "deals", "baazis", "practice", "hint_bot")


def resume(
    path: str, base: Settings, given: Mapping[str, Any] | None = None
) -> tuple[Settings, Session]:
    """The game saved in ``path`` (a docs/format.md record, finished or not) and its settings: the
    record's rules and seed, its ``play`` entry (seat, bots, match length, practice, hint
    bot; ``base`` supplies them for a record saved elsewhere), then ``given`` (options typed
    on the command line) over them; ``base`` gives the rest (delay, save, plain). Every move
    is replayed and checked by the core. Raises :class:`RecordError` naming the problem."""
    record = read_record(path)
    entry = record.get("play", {})
    if not isinstance(entry, dict):
        raise RecordError(f"{path}: 'play' must be an object, got {type(entry).__name__}")
    values: dict[str, Any] = {
        "seat": base.seat,
        "bots": base.bots,
        "deals": base.deals,
        "baazis": base.baazis if base.deals is None else None,
        "practice": base.practice,
        "hint_bot": base.hint_bot,
    }
    values.update((k, entry[k]) for k in PLAY_ENTRY if k in entry)
    given = dict(given or {})
    if given.get("deals") is not None:  # --deals and --baazis each replace the other
        values["baazis"] = None
    if given.get("baazis") is not None:
        values["deals"] = None
    values.update(given)

    def bad(key: str, want: str) -> RecordError:
        return RecordError(f"{path}: 'play.{key}' must be {want}, got {values[key]!r}")

    def is_int(v: object) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    for key in ("bots", "hint_bot"):
        if not isinstance(values[key], str):
            raise bad(key, "a bot's name")
        try:
            make_bot(values[key])
        except ValueError as exc:
            raise RecordError(f"{path}: 'play.{key}': {exc}") from None
    for key in ("deals", "baazis"):
        if values[key] is not None and not (is_int(values[key]) and values[key] >= 1):
            raise bad(key, "a positive integer or null")
    if values["deals"] is None and values["baazis"] is None:
        raise RecordError(f"{path}: 'play' must give 'deals' or 'baazis' (the match's length)")
    if not isinstance(values["practice"], bool):
        raise bad("practice", "true or false")
    seed = record.get("seed", 0)
    if not is_int(seed):
        raise RecordError(f"{path}: 'seed' must be an integer, got {seed!r}")
    try:
        session = Session.from_record(record, deals=values["deals"], baazis=values["baazis"])
    except RECORD_ERRORS as exc:
        raise record_error(path, exc) from None
    seats = len(session.position.hands)
    if not (is_int(values["seat"]) and 0 <= values["seat"] < seats):
        raise bad("seat", f"a seat from 0 to {seats - 1}")
    settings = replace(
        base,
        seed=seed,
        preset=rules_label(session.position),
        seat=values["seat"],
        bots=values["bots"],
        deals=values["deals"],
        baazis=values["baazis"] if values["baazis"] is not None else base.baazis,
        practice=values["practice"],
        hint_bot=values["hint_bot"],
        load=path,
    )
    return settings, session

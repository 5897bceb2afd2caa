"""``seep play``: a match in the terminal, you in one seat and bots in the other three.

The engine decides everything: the legal moves come from :class:`~seep.match.Match` (its
position), a typed move is checked by the engine (whose message says why it is illegal), the
bots see only their seat's :class:`~seep.view.View`. This module asks, shows and records.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from time import sleep

from rich.console import Console
from rich.text import Text

from ..bots import make_bot
from ..cards import CARD_NAMES, cards_of_mask, parse_card
from ..errors import NotationError, SeepError
from ..match import Match
from ..moves import Move
from ..notation import format_move, parse_move
from ..view import View
from .narrow import describe_move, next_step
from .render import SEAT_NAMES, TEAM_NAMES, deal_summary, position_view, seat_label

__all__ = ["Game", "Settings"]

HELP = (
    "Type the number of a card from your hand (or its name, like 9S), then the number of one "
    "of its uses. You can also type a whole move in notation: 9S x 4H 5D (capture), 4D =13 9H "
    "(build), TS +10 (add to a house), 2H ^9=11 (break), bid 11.\n"
    "  ?  hint (what a bot would play, and why)    u  undo your last move (practice games)\n"
    "  s  save the game to a file                  t  show the table again\n"
    "  b  back (while choosing a use)              q  quit\n"
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


class Quit(Exception):
    """The player asked to stop."""


class Game:
    """A running ``seep play`` session; :meth:`run` plays it to the end."""

    def __init__(
        self,
        settings: Settings,
        console: Console,
        ask: Callable[[str], str] | None = None,
    ) -> None:
        self.settings = settings
        self.console = console
        self.ask_fn = ask or (lambda prompt: console.input(Text(prompt, style="bold cyan")))
        self.you = settings.seat
        self.match = Match(settings.seed, settings.preset)
        self.bots = {s: make_bot(settings.bots) for s in range(4) if s != self.you}
        # The current deal's moves as (seat, code, note): bots' views need (seat, code), and
        # the note ("sweep") is shown in the last-move column.
        self.history: list[tuple[int, int, str]] = []

    # --- helpers --------------------------------------------------------------------------

    def ask(self, prompt: str) -> str:
        """One line of input, stripped (EOFError and KeyboardInterrupt propagate)."""
        return self.ask_fn(prompt).strip()

    def say(self, text: str, style: str = "") -> None:
        """Print a line of plain text (no markup: card names and brackets stay as typed)."""
        self.console.print(Text(text, style=style))

    def _views_history(self) -> tuple[tuple[int, int], ...]:
        return tuple((s, c) for s, c, _ in self.history)

    def _rng(self, seat: int, purpose: str) -> random.Random:
        """A bot's own RNG for one decision: a pure function of the game seed and the point of
        the game, so a move taken back and made again gets the same replies."""
        pos = self.match.position
        key = f"seep-cli:{self.settings.seed}:{purpose}:{self.match.deals_finished}:"
        key += f"{pos.plays}:{pos.phase}:{seat}:{len(self.history)}"
        return random.Random(key)

    def last_moves(self) -> list[str]:
        """Each seat's latest move in this deal, in notation."""
        last = ["", "", "", ""]
        for s, c, note in self.history:
            last[s] = format_move(c) + (f" ({note})" if note else "")
        return last

    def show(self) -> None:
        """Draw the table as the player sees it."""
        title = "Seep" + (" · practice" if self.settings.practice else "")
        self.console.print()
        self.console.print(
            position_view(
                self.match.position,
                you=self.you,
                last_moves=self.last_moves(),
                deal_number=self.match.deals_finished + 1,
                title=title,
                playable=self._playable(),
            )
        )

    def _playable(self) -> int | None:
        """The cards of your hand that have a legal use now (from the engine's moves)."""
        pos = self.match.position
        if pos.to_move != self.you:
            return None
        mask = 0
        for m in pos.legal_moves():
            if m.card is not None:
                mask |= 1 << m.card
        return mask

    def make(self, move: int) -> None:
        """Make a move for the seat to move (already checked legal) and note a sweep."""
        pos = self.match.position
        seat = pos.to_move
        assert seat is not None
        before = list(pos.sweeps)
        self.match.play(int(move))
        swept = [a - b for a, b in zip(pos.sweeps, before, strict=True)]
        note = f"sweep +{max(swept)}" if any(swept) else ""
        self.history.append((seat, int(move), note))
        if seat != self.you:
            who = seat_label(seat, self.you)
            if Move(move).is_play():
                text = f"{who} plays {format_move(move)}   {describe_move(Move(move))}"
            else:  # a bid or a redeal: the words say it all
                text = f"{who}: {describe_move(Move(move))}"
            text += f"  ** {note} **" if note else ""
            self.say(text)

    # --- saving ---------------------------------------------------------------------------

    def save(self, path: str | None = None) -> bool:
        """Write the docs/format.md record of the game so far; asks for a file name if none."""
        default = self.settings.save or f"seep-{self.settings.seed}.json"
        if path is None:
            path = self.ask(f"Save to which file? [{default}] ") or default
        try:
            Path(path).write_text(json.dumps(self.match.to_record(), indent=1) + "\n")
        except OSError as exc:
            self.say(f"Could not save to {path}: {exc.strerror or exc}", "bold red")
            return False
        self.say(f"Saved the game to {path}", "green")
        return True

    def offer_save(self, question: str) -> None:
        """Ask whether to save (used on quitting and at the end)."""
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
        pos = self.match.position
        view = View.from_position(pos, self.you, self._views_history())
        decision = make_bot(self.settings.hint_bot).choose(view, self._rng(self.you, "hint"))
        self.say(
            f"Hint: {format_move(decision.move)}   ({describe_move(decision.move)}): "
            f"{decision.reason}",
            "yellow",
        )

    def undo(self) -> bool:
        """Take back your last move in this deal and the bots' replies after it."""
        if not self.settings.practice:
            self.say("Undo is for practice games: start one with seep play --practice.", "red")
            return False
        if not any(s == self.you for s, _, _ in self.history):
            self.say("You have made no move in this deal yet: nothing to undo.", "red")
            return False
        replies = 0
        while True:
            self.match.undo()
            seat, code, _ = self.history.pop()
            if seat == self.you:
                break
            replies += 1
        extra = f" and {replies} bot repl{'y' if replies == 1 else 'ies'}" if replies else ""
        self.say(f"Took back your {format_move(code)}{extra}.", "green")
        return True

    def _card_uses(self, card: int) -> list[Move] | None:
        """The legal uses of a card of your hand, or None (with a message) if it has none."""
        pos = self.match.position
        if not pos.hands[self.you] >> card & 1:
            self.say(f"You do not hold {CARD_NAMES[card]}.", "red")
            return None
        uses = [m for m in pos.legal_moves() if m.card == card]
        if uses:
            return uses
        try:
            pos.verify_move(Move.throw(card))  # the engine says why even a throw is illegal
        except SeepError as exc:
            self.say(f"That card cannot be played now: {exc}", "red")
        else:  # pragma: no cover - a legal throw would have been among the uses
            self.say("That card cannot be played now.", "red")
        return None

    def _typed_move(self, text: str) -> Move | None:
        """A move typed in notation, checked by the engine; None (with the reason) if not."""
        try:
            move = parse_move(text)
            self.match.position.verify_move(move)
        except SeepError as exc:
            self.say(f"Not a legal move: {exc}", "red")
            self.say("(type h for help)", "dim")
            return None
        return move

    def turn(self) -> None:
        """Ask the player for a move until a legal one is made (raises Quit)."""
        self.show()
        pos = self.match.position
        # The narrowing in progress: each entry the moves still possible after one answer.
        stack: list[list[Move]] = [pos.legal_moves()] if pos.phase == "bid" else []
        show_step = True
        while True:
            pos = self.match.position
            if stack and show_step:
                step = next_step(stack[-1])
                self.say(step.question, "bold")
                for i, opt in enumerate(step.options, 1):
                    self.say(f"  {i:>2}. {opt.label}")
            show_step = False
            if stack:
                prompt = "Choose a number (b: back, h: help)> "
            elif pos.phase == "bid":
                prompt = "Your bid> "
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
                self.say(HELP)
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
                if len(stack) > (1 if pos.phase == "bid" else 0):
                    stack.pop()
                    show_step = True
                else:
                    self.say("Nothing to go back to.", "dim")
                continue
            if not text:
                if stack:
                    show_step = True
                else:
                    self.say("Type a card (its number or name), or h for help.", "dim")
                continue
            move: Move | None = None
            if stack and text.isdigit():
                step = next_step(stack[-1])
                n = int(text)
                if not 1 <= n <= len(step.options):
                    self.say(f"Please choose a number from 1 to {len(step.options)}.", "red")
                    continue
                chosen = step.options[n - 1]
                if step.kind != "move":
                    stack.append(list(chosen.moves))
                    show_step = True
                    continue
                move = chosen.moves[0]
            elif not stack and (text.isdigit() or _is_card(text)):
                card = self._pick_card(text)
                uses = None if card is None else self._card_uses(card)
                if uses is not None:
                    stack = [uses]
                    show_step = True
                continue
            else:
                move = self._typed_move(text)
            if move is not None:
                self.make(move)
                return

    def _pick_card(self, text: str) -> int | None:
        """A card of your hand by its number in the sorted hand or by its name."""
        hand = list(cards_of_mask(self.match.position.hands[self.you]))
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
        pos = self.match.position
        seat = pos.to_move
        assert seat is not None
        view = View.from_position(pos, seat, self._views_history())
        decision = self.bots[seat].choose(view, self._rng(seat, "bot"))
        self.make(decision.move)
        if self.settings.delay > 0:
            sleep(self.settings.delay)

    def finish_deal(self) -> bool:
        """Score the finished deal and start the next; True when the match is over."""
        self.show()
        before = self.match.baazis
        number = self.match.deals_finished + 1
        result = self.match.next_deal()
        self.history = []
        after = self.match.baazis
        self.console.print()
        self.say(f"Deal {number} is over.", "bold")
        self.console.print(deal_summary(result, self.you))
        pos = self.match.position
        for t in (0, 1):
            if after[t] > before[t]:
                who = "your team" if t == self.you & 1 else "the other team"
                self.say(f"{TEAM_NAMES[t]} ({who}) win the baazi!", "bold green")
        self.say(
            f"Baazis won: NS {after[0]}, WE {after[1]}.  Baazi difference NS-WE now "
            f"{pos.match_diff:+d}."
        )
        s = self.settings
        done = (
            self.match.deals_finished >= s.deals
            if s.deals is not None
            else after[0] + after[1] >= s.baazis
        )
        if done:
            self.final_results()
            return True
        self.ask("Press Enter for the next deal ")
        return False

    def final_results(self) -> None:
        """The match's totals, then the record is saved or offered."""
        totals = [0, 0]
        for deal in self.match.deals:
            for t in (0, 1):
                totals[t] += deal["result"]["score"][t]
        baazis = self.match.baazis
        self.console.print()
        self.say("The match is over.", "bold")
        self.say(
            f"Deals played: {self.match.deals_finished}.  Total scores: NS {totals[0]}, "
            f"WE {totals[1]}.  Baazis: NS {baazis[0]}, WE {baazis[1]}."
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
        others = ", ".join(SEAT_NAMES[t] for t in range(4) if t != self.you)
        goal = f"{s.deals} deal(s)" if s.deals is not None else f"{s.baazis} baazi(s)"
        self.say(
            f"Seep: you are {SEAT_NAMES[self.you]} (seat {self.you}), your partner is "
            f"{SEAT_NAMES[(self.you + 2) % 4]}; {s.bots} bots play {others}. Rules {s.preset}, "
            f"{goal}, seed {s.seed}{', practice (undo allowed)' if s.practice else ''}. "
            "Type h for help.",
            "bold",
        )
        try:
            while True:
                pos = self.match.position
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


def _is_card(text: str) -> bool:
    try:
        parse_card(text)
    except NotationError:
        return False
    return True

"""Rule options (docs/rules.md §3) and the named presets.

A :class:`Rules` is an immutable value; positions carry one. ``Rules.parse`` accepts what
docs/format.md allows: a preset name or a dict of option keys (missing keys take the standard
value). An unknown key or a bad value raises :class:`InvalidRulesError` naming it.

>>> Rules.parse("family").ten_diamonds_points
2
>>> Rules.parse({"capture_rule": "any"}).capture_rule
'any'
>>> Rules.parse({"captur_rule": "any"})
Traceback (most recent call last):
...
seep.errors.InvalidRulesError: unknown rule option 'captur_rule' (known: capture_rule, ...)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from .errors import InvalidRulesError

__all__ = ["PRESETS", "Rules"]

_CHOICES: dict[str, tuple[str, ...]] = {
    "capture_rule": ("maximal", "any"),
    "throw_rule": ("no_capture_possible", "always", "no_other_move"),
    "absorb_loose_groups": ("optional", "mandatory", "never"),
    "add_retention": ("self", "team"),
    "dealer_rule": ("losing_team", "rotate"),
    "majority_tie": ("none", "split"),
    "min_score_effect": ("lose_baazi", "zero_card_points"),
}
_BOOLS = (
    "allow_pair_build",
    "house_in_sums",
    "partner_cement_free",
    "min_score_includes_sweeps",
    "deal_before_bid",
    "second_deal",
)
_INTS = (
    "sweep_value",
    "sweep_first",
    "sweep_last",
    "min_score",
    "baazi_lead",
    "ten_diamonds_points",
    "majority_bonus",
)


@dataclass(frozen=True, slots=True)
class Rules:
    """The rule options of docs/rules.md §3; the defaults are the ``standard`` preset."""

    capture_rule: str = "maximal"  # R25, A8
    throw_rule: str = "no_capture_possible"  # R22, R16, A7
    absorb_loose_groups: str = "optional"  # R31, A11
    allow_pair_build: bool = False  # R27, A12
    house_in_sums: bool = False  # R21g, A10
    partner_cement_free: bool = True  # R28, R33, A13
    add_retention: str = "self"  # R28, A14
    sweep_value: int = 50  # R38, A18
    sweep_first: int = 25  # R17, R38
    sweep_last: int = 0  # R38
    min_score: int = 9  # R46
    min_score_includes_sweeps: bool = True  # R46, A19
    baazi_lead: int = 100  # R7, R45, A20
    ten_diamonds_points: int = 6  # R5, A21
    majority_bonus: int = 0  # R42, A21
    max_houses: int | None = None  # A22
    dealer_rule: str = "losing_team"  # R9, R10, A3
    deal_before_bid: bool = False  # R12, R18, A5
    players: int = 4  # R1, R2; 2: docs/rules.md §12 (R2P1)
    second_deal: bool = True  # R2P4, R2P7 (two players only)
    majority_tie: str = "none"  # R42: "split" halves majority_bonus on 26-26
    min_score_effect: str = "lose_baazi"  # R46: or "zero_card_points" (§12.3)

    def __post_init__(self) -> None:
        for key, choices in _CHOICES.items():
            value = getattr(self, key)
            if value not in choices:
                raise InvalidRulesError(
                    f"bad value {value!r} for rule option {key!r}: expected one of "
                    + ", ".join(repr(c) for c in choices)
                )
        for key in _BOOLS:
            if not isinstance(getattr(self, key), bool):
                raise InvalidRulesError(
                    f"bad value {getattr(self, key)!r} for rule option {key!r}: expected true/false"
                )
        for key in _INTS:
            value = getattr(self, key)
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidRulesError(
                    f"bad value {value!r} for rule option {key!r}: expected an integer"
                )
        mh = self.max_houses
        if mh is not None and (not isinstance(mh, int) or isinstance(mh, bool) or mh < 1):
            raise InvalidRulesError(
                f"bad value {mh!r} for rule option 'max_houses': expected null or an integer >= 1"
            )
        if self.players not in (2, 4) or isinstance(self.players, bool):
            raise InvalidRulesError(
                f"bad value {self.players!r} for rule option 'players': expected 2 or 4"
            )
        if self.baazi_lead < 1:
            raise InvalidRulesError("bad value for rule option 'baazi_lead': must be >= 1")

    @classmethod
    def parse(cls, spec: str | Mapping[str, Any] | Rules | None) -> Rules:
        """Rules from a preset name, a dict of options (docs/format.md ``rules``) or ``None``."""
        if spec is None:
            return STANDARD
        if isinstance(spec, Rules):
            return spec
        if isinstance(spec, str):
            preset = PRESETS.get(spec)
            if preset is None:
                raise InvalidRulesError(
                    f"unknown rules preset {spec!r} (known: {', '.join(PRESETS)})"
                )
            return preset
        if not isinstance(spec, Mapping):
            raise InvalidRulesError(
                f"rules must be a preset name or an object of options, got {type(spec).__name__}"
            )
        known = _FIELD_NAMES
        for key in spec:
            if key not in known:
                raise InvalidRulesError(f"unknown rule option {key!r} (known: {', '.join(known)})")
        try:
            return cls(**dict(spec))
        except TypeError as exc:  # pragma: no cover - guarded by the key check above
            raise InvalidRulesError(str(exc)) from None

    def to_dict(self) -> dict[str, Any]:
        """Every option with its value (docs/format.md: "a dump writes every key")."""
        return {f: getattr(self, f) for f in _FIELD_NAMES}

    def changed(self) -> dict[str, Any]:
        """The options that differ from the standard rules."""
        return {
            f: getattr(self, f) for f in _FIELD_NAMES if getattr(self, f) != getattr(STANDARD, f)
        }

    def preset_name(self) -> str | None:
        """The name of the preset these rules equal, if any."""
        for name, preset in PRESETS.items():
            if preset == self:
                return name
        return None

    def with_options(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated)."""
        for key in changes:
            if key not in _FIELD_NAMES:
                raise InvalidRulesError(f"unknown rule option {key!r}")
        return replace(self, **changes)


_FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Rules))
STANDARD = Rules()
PRESETS: dict[str, Rules] = {
    "standard": STANDARD,
    "family": Rules(ten_diamonds_points=2, majority_bonus=4),
    "two_houses": Rules(max_houses=2),
    "two_player": Rules(players=2),  # docs/rules.md §12.3
}

"""The engine for developers (issue 22, item 8): docstrings and signatures on the compiled core
as on the pure one, moves taken as notation everywhere, and refusals carried by the error.

mypyc's compiled core had no docstrings (``help(seep.Position)`` showed none) and no signature
for ``Position.new_deal``; setup.py now writes the sources' docstrings into the C mypyc makes.
These tests run on whichever core ``seep.COMPILED`` says runs (``make test`` runs them on both).
"""

from __future__ import annotations

import ast
import inspect
import pickle
import pydoc
import re
from pathlib import Path

import pytest

import seep
from seep import engine, moves, session, verify, view
from seep.engine import Position
from seep.errors import IllegalMoveError, MalformedMoveError, NotationError
from seep.moves import Move, move_code
from seep.session import Session
from seep.verify import Refusal, check, verify_move
from seep.view import View

SRC = Path(seep.__file__).resolve().parent

# The documented classes and the source that defines them (read from the .py, which ships
# beside a compiled module, so the list cannot drift from the code).
CLASSES = [(Position, "engine.py"), (Session, "session.py"), (View, "view.py"), (Move, "moves.py")]


def public_members(source: str, class_name: str) -> list[tuple[str, bool]]:
    """(name, is_property) of the public methods and properties a class defines in source."""
    tree = ast.parse((SRC / source).read_text(encoding="utf-8"))
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
    out = []
    for item in cls.body:
        if isinstance(item, ast.FunctionDef) and not item.name.startswith("_"):
            is_property = any(getattr(d, "id", "") == "property" for d in item.decorator_list)
            out.append((item.name, is_property))
    return out


def test_every_public_name_has_a_docstring() -> None:
    missing = [name for name in seep.__all__ if not inspect.getdoc(getattr(seep, name))]
    assert missing == []


@pytest.mark.parametrize("name", [n for n in seep.__all__ if callable(getattr(seep, n))])
def test_every_public_callable_has_a_signature(name: str) -> None:
    obj = getattr(seep, name)
    if isinstance(obj, type) and issubclass(obj, BaseException):
        return  # an exception's signature is its message (and TooManyMovesError's fields)
    inspect.signature(obj)


@pytest.mark.parametrize(("cls", "source"), CLASSES, ids=[c.__name__ for c, _ in CLASSES])
def test_public_methods_have_docstrings_and_signatures(cls: type, source: str) -> None:
    members = public_members(source, cls.__name__)
    assert len(members) >= 5
    assert inspect.getdoc(cls), cls
    no_doc = [name for name, _ in members if not inspect.getdoc(getattr(cls, name))]
    assert no_doc == []
    for name, is_property in members:
        if not is_property:
            inspect.signature(getattr(cls, name))  # raises ValueError without one


def test_signatures_name_the_parameters() -> None:
    sig = inspect.signature(Position.new_deal)
    assert list(sig.parameters) == ["seed", "dealer", "rules", "match"]
    assert sig.parameters["rules"].default == "standard"
    assert sig.parameters["match"].kind is inspect.Parameter.KEYWORD_ONLY
    assert "rules" in inspect.signature(Position).parameters
    assert list(inspect.signature(Position.play).parameters) == ["self", "move"]
    assert list(inspect.signature(check).parameters) == ["pos", "move"]


def test_help_shows_the_docstrings() -> None:
    text = pydoc.render_doc(Position, renderer=pydoc.plaintext)
    assert "One deal of Seep with every card visible" in text
    assert "Check and make a move given as a code" in text  # play's docstring
    # The signature, annotated on the pure core, without annotations on the compiled one.
    assert re.search(r"new_deal\(seed.*, dealer.*=.*0, rules.*=\s*'standard'", text)
    assert "The seat to move" in text  # a property's docstring
    for module in (engine, verify, view):
        assert inspect.getdoc(module), module.__name__


def test_the_defaults_mean_what_they_did() -> None:
    # A literal default where the signature showed nothing: still the standard rules.
    assert Position().rules == seep.Rules.parse("standard")
    assert Position.new_deal(3).to_dict() == Position.new_deal(3, 0, "standard").to_dict()
    assert Position.from_deck(list(range(52))).rules.preset_name() == "standard"


# --- moves as notation everywhere ------------------------------------------------------------


def opened() -> Position:
    """Deal 1 after the bid of 13: play 1 is bound to the bid (R16)."""
    pos = Position.new_deal(1)
    pos.play("bid 13")
    return pos


def test_is_legal_and_check_take_notation_and_dicts() -> None:
    pos = opened()
    assert pos.is_legal("KH x 3C TD") and pos.is_legal(parse := moves.parse_move("KH x 3C TD"))
    assert pos.is_legal(int(parse))
    assert not pos.is_legal("6D")
    assert pos.is_legal({"action": "capture", "card": "KH", "loose": ["3C", "TD"], "houses": []})
    refusal = check(pos, "6D")
    assert refusal is not None and refusal.rule == "R16" and refusal.args == {"bid": 13}
    assert check(pos, "kh x 3c td") is None


def test_a_malformed_move_is_named_not_a_type_error() -> None:
    pos = opened()
    with pytest.raises(NotationError, match="unknown card '6Q'"):
        pos.is_legal("6Q")
    with pytest.raises(NotationError, match="empty move"):
        check(pos, "  ")
    with pytest.raises(MalformedMoveError, match="unknown move action 'jump'"):
        pos.is_legal({"action": "jump"})
    with pytest.raises(MalformedMoveError, match="got float"):
        pos.is_legal(1.5)  # type: ignore[arg-type]
    with pytest.raises(MalformedMoveError, match="got bool"):
        move_code(True)


def test_session_takes_notation_in_check_and_play() -> None:
    s = Session(start=Position.new_deal(1))
    seat = s.to_move
    assert s.verify("bid 13") == Move.bid(13)
    assert s.play("bid 13") == (seat, Move.bid(13))
    with pytest.raises(NotationError):
        s.verify("bid")


# --- the refusal on the error ---------------------------------------------------------------


def test_illegal_move_error_carries_the_refusal() -> None:
    pos = opened()
    with pytest.raises(IllegalMoveError) as info:
        pos.play("6D")
    exc = info.value
    assert isinstance(exc.refusal, Refusal)
    assert exc.rule == "R16" and exc.refusal.rule == "R16"
    assert exc.refusal.args == {"bid": 13}
    assert exc.args == (str(exc),)  # the exception's own args stay (message,)
    # Said once: "illegal" is the error's word, never the refusal's too.
    assert str(exc).count("illegal") == 1 and str(exc).startswith("illegal move '6D': ")
    assert str(exc).endswith(str(exc.refusal))


def test_the_refusal_survives_pickling() -> None:
    # The arena's worker processes and the web's bot pool send errors between processes.
    with pytest.raises(IllegalMoveError) as info:
        opened().play("6D")
    copy = pickle.loads(pickle.dumps(info.value))
    assert type(copy) is IllegalMoveError and str(copy) == str(info.value)
    assert copy.rule == "R16" and copy.refusal is not None and copy.refusal.args == {"bid": 13}
    plain = pickle.loads(pickle.dumps(MalformedMoveError("a bid move needs the field 'value'")))
    assert type(plain) is MalformedMoveError and plain.refusal is None


def test_the_refusal_reaches_every_entry_point() -> None:
    pos = opened()
    with pytest.raises(IllegalMoveError) as info:
        verify_move(pos, "6D")
    assert info.value.rule == "R16"
    s = Session(start=Position.new_deal(1))
    s.play("bid 13")
    for attempt in (s.verify, s.play):
        with pytest.raises(IllegalMoveError) as info:
            attempt("6D")
        assert info.value.rule == "R16" and info.value.refusal is not None
    # A refusal that is no rule's carries none.
    with pytest.raises(IllegalMoveError) as info:
        s.verify("KH x 3C TD", seat=3)
    assert info.value.rule is None and info.value.refusal is None
    with pytest.raises(IllegalMoveError) as info:
        Position.new_deal(1).next_deal(2)
    assert info.value.rule is None


def test_session_module_documents_verify() -> None:
    assert "notation" in (inspect.getdoc(session.Session.verify) or "")

"""Tables made by hand for the web's tests (no server): a bidder holding a dead card."""

from __future__ import annotations

from seep.moves import Move
from seep.session import first_dealer
from seep.web.tables import Table, parse_settings


def bidder_table() -> tuple[Table, int]:
    """A started table whose bidder (seat 0) has bid and is to make play 1 (bound to the
    bid, R16) holding a card with no legal use: the first such seed."""
    for seed in range(2000):
        if first_dealer(seed) != 3:  # seat 0 bids
            continue
        table = Table("DEADCD", parse_settings({"bots": "easy"}), seed)
        table.start(0)
        assert table.position is not None
        codes = table.position.legal_codes()
        bids = [c for c in codes if Move(c).to_dict()["action"] == "bid"]
        if not bids:
            continue  # a redeal hand
        table.apply(bids[0])
        if table.state(0)["dead"]:
            return table, int(Move(bids[0]).to_dict()["value"])
    raise AssertionError("no seed below 2000 gives a dead card on play 1")

"""The ratings of a :class:`~seep.web.store.Store` (docs/web.md "Ratings"): a rated match's
update is written inside the transaction that ends the match (:meth:`StoreRatings._rate`), so a
match is rated exactly once, or not at all if that transaction never commits."""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import case, delete, func, insert, select, update
from sqlalchemy.engine import Connection, Engine

from .ratings import RatedMatch, Rating, bot_rating, rate
from .schema import accounts_t, rated_matches_t, rating_changes_t, ratings_t, tables_t

__all__ = ["StoreRatings", "forget_ratings"]


# What a rated match did to one seat: the columns every read of rating_changes shows.
_SEAT_CHANGE = (
    rating_changes_t.c.seat,
    rating_changes_t.c.forfeited,
    rating_changes_t.c.mu_before,
    rating_changes_t.c.sigma_before,
    rating_changes_t.c.mu_after,
    rating_changes_t.c.sigma_after,
)


class StoreRatings:
    """The store's ratings; ``engine`` is the store's."""

    engine: Engine

    @staticmethod
    def _rate(c: Connection, code: str, match: RatedMatch) -> bool:
        """Rate a finished match inside the caller's transaction (the one that ends it); False
        when it was rated already (the end written twice: a retry, another instance)."""
        accounts = sorted({a for a in match.accounts if a is not None})
        # Two instances may end two matches of one player at once: each reads his rating and
        # writes it back, and the second would undo the first. The accounts' rows are locked
        # first (in id order, so that two such transactions cannot deadlock), so the
        # second waits until the first commits and reads its result; it also draws its match
        # id after that one's, and the order of the ids is the order the ratings changed in.
        # SQLite ignores FOR UPDATE: it lets one writer in at a time anyway.
        c.execute(
            select(accounts_t.c.id)
            .where(accounts_t.c.id.in_(accounts))
            .order_by(accounts_t.c.id)
            .with_for_update()
        ).all()
        done = c.execute(select(rated_matches_t.c.id).where(rated_matches_t.c.code == code)).first()
        if done is not None:
            return False
        rows = c.execute(
            select(ratings_t).where(
                ratings_t.c.format == match.format, ratings_t.c.account.in_(accounts)
            )
        ).all()
        before = {r.account: Rating(r.mu, r.sigma, r.games) for r in rows}
        after = rate(match, before)
        now = time.time()
        made = c.execute(
            insert(rated_matches_t).values(
                code=code, format=match.format, winner=match.winner, ended=now
            )
        )
        key = made.inserted_primary_key
        assert key is not None
        match_id = int(key[0])
        changes = []
        for seat, account in enumerate(match.accounts):
            if account is None:
                old = new = bot_rating(match.bots, match.format)
            else:
                old, new = before.get(account, Rating()), after[account]
            changes.append(
                {
                    "match": match_id,
                    "seat": seat,
                    "account": account,
                    "result": match.result(seat),
                    "forfeited": seat in match.forfeited,
                    "deals": match.deals,
                    **_totals(match, seat),
                    "mu_before": old.mu,
                    "sigma_before": old.sigma,
                    "mu_after": new.mu,
                    "sigma_after": new.sigma,
                }
            )
        c.execute(insert(rating_changes_t), changes)
        for account, new in after.items():
            values = {"mu": new.mu, "sigma": new.sigma, "games": new.games, "last": now}
            if account in before:
                c.execute(
                    update(ratings_t)
                    .where(ratings_t.c.account == account, ratings_t.c.format == match.format)
                    .values(**values)
                )
            else:
                c.execute(insert(ratings_t).values(account=account, format=match.format, **values))
        return True

    def ratings_of(self, account: int) -> dict[str, Rating]:
        """An account's ratings by format (a format it never played rated is missing)."""
        with self.engine.connect() as c:
            rows = c.execute(select(ratings_t).where(ratings_t.c.account == account)).all()
        return {r.format: Rating(r.mu, r.sigma, r.games) for r in rows}

    def ratings_in(self, accounts: Collection[int], format: str) -> dict[int, Rating]:
        """The ratings of ``accounts`` in one format, by account, in one query (an account that
        never played it rated is missing): the names at one table."""
        if not accounts:
            return {}
        query = select(ratings_t).where(
            ratings_t.c.account.in_(sorted(set(accounts))), ratings_t.c.format == format
        )
        with self.engine.connect() as c:
            rows = c.execute(query).all()
        return {r.account: Rating(r.mu, r.sigma, r.games) for r in rows}

    def forfeits_of(self, account: int) -> int:
        """How many rated matches the account forfeited by leaving them (its abandons)."""
        query = select(func.count()).where(
            rating_changes_t.c.account == account, rating_changes_t.c.forfeited
        )
        with self.engine.connect() as c:
            return int(c.execute(query).scalar_one())

    def stats_of(self, account: int) -> Any:
        """The account's rated matches summed: a row of ``matches``, ``wins``, ``losses``,
        ``draws``, ``forfeits``, ``deals``, ``baazis``, ``points``, ``sweep_points`` (his
        team's, over those matches). One pass over his rows by the account's index."""
        rc = rating_changes_t.c

        def count(result: str) -> Any:
            return func.coalesce(func.sum(case((rc.result == result, 1), else_=0)), 0)

        query = select(
            func.count().label("matches"),
            count("win").label("wins"),
            count("loss").label("losses"),
            count("draw").label("draws"),
            func.coalesce(func.sum(case((rc.forfeited, 1), else_=0)), 0).label("forfeits"),
            func.coalesce(func.sum(rc.deals), 0).label("deals"),
            func.coalesce(func.sum(rc.baazis), 0).label("baazis"),
            func.coalesce(func.sum(rc.points), 0).label("points"),
            func.coalesce(func.sum(rc.sweep_points), 0).label("sweep_points"),
        ).where(rc.account == account)
        with self.engine.connect() as c:
            return c.execute(query).one()

    def rating_history(self, account: int, format: str, limit: int) -> Sequence[Any]:
        """The account's latest ``limit`` ratings in ``format`` after each rated match, oldest
        first: rows of ``match``, ``ended``, ``mu_after``, ``sigma_after``."""
        query = (
            select(
                rating_changes_t.c.match,
                rated_matches_t.c.ended,
                rating_changes_t.c.mu_after,
                rating_changes_t.c.sigma_after,
            )
            .join(rated_matches_t, rated_matches_t.c.id == rating_changes_t.c.match)
            .where(rating_changes_t.c.account == account, rated_matches_t.c.format == format)
            .order_by(rating_changes_t.c.match.desc())
            .limit(limit)
        )
        with self.engine.connect() as c:
            return list(reversed(c.execute(query).all()))

    def rating_changes_of(self, account: int, offset: int, limit: int) -> Sequence[Any]:
        """The account's rated matches, newest first: rows of ``match``, ``code``, ``format``,
        ``seat``, ``result``, ``forfeited``, ``mu_before``, ``sigma_before``, ``mu_after``,
        ``sigma_after``, ``ended`` and the table's stored ``seats`` (JSON: each seat's name,
        kind, account).

        The page's matches are picked first from the account's index alone, and only those
        are joined: an OFFSET over the whole join would join every skipped row too, and a
        busy player's deep page would cost thousands of lookups (bench/accounts.py)."""
        page = (
            select(rating_changes_t.c.match)
            .where(rating_changes_t.c.account == account)
            .order_by(rating_changes_t.c.match.desc())
            .offset(offset)
            .limit(limit)
            .subquery()
        )
        query = (
            select(
                rating_changes_t.c.match,
                rated_matches_t.c.code,
                rated_matches_t.c.format,
                rating_changes_t.c.result,
                *_SEAT_CHANGE,
                rated_matches_t.c.ended,
                tables_t.c.seats,
            )
            .select_from(page)
            .join(rating_changes_t, rating_changes_t.c.match == page.c.match)
            .join(rated_matches_t, rated_matches_t.c.id == rating_changes_t.c.match)
            .join(tables_t, tables_t.c.code == rated_matches_t.c.code)
            .where(rating_changes_t.c.account == account)
            .order_by(rating_changes_t.c.match.desc())
        )
        with self.engine.connect() as c:
            return c.execute(query).all()

    def rated_matches(self) -> Sequence[Any]:
        """Every rated match in the order it was rated, with its seats' changes: rows of
        ``id``, ``code``, ``format``, ``winner``, ``seat``, ``account``, ``forfeited``,
        ``mu_before``, ``sigma_before``, ``mu_after``, ``sigma_after``, and the table's
        ``settings``, ``status`` and ``record`` (for checking the ratings against the stored
        results)."""
        query = (
            select(
                rated_matches_t.c.id,
                rated_matches_t.c.code,
                rated_matches_t.c.format,
                rated_matches_t.c.winner,
                rating_changes_t.c.account,
                *_SEAT_CHANGE,
                tables_t.c.settings,
                tables_t.c.status,
                tables_t.c.record,
            )
            .join(rating_changes_t, rating_changes_t.c.match == rated_matches_t.c.id)
            .join(tables_t, tables_t.c.code == rated_matches_t.c.code)
            .order_by(rated_matches_t.c.id, rating_changes_t.c.seat)
        )
        with self.engine.connect() as c:
            return c.execute(query).all()

    def leaderboard(
        self, format: str, min_games: int, since: float, max_sigma: float, offset: int, limit: int
    ) -> tuple[int, Sequence[Any]]:
        """A format's settled ratings (at least ``min_games`` rated matches, the latest since
        ``since``, sigma at most ``max_sigma``), best first: how many there are, and the page's
        rows of ``name``, ``mu``, ``sigma``, ``games``."""
        where = (
            ratings_t.c.format == format,
            ratings_t.c.games >= min_games,
            ratings_t.c.last >= since,
            ratings_t.c.sigma <= max_sigma,
        )
        # The page is picked from the index alone (its order, every filter in it), and only
        # its rows are joined to their names: an OFFSET over the join would look up the
        # name of every skipped player too (bench/accounts.py's deep page).
        page = (
            select(ratings_t.c.account, ratings_t.c.mu, ratings_t.c.sigma, ratings_t.c.games)
            .where(*where)
            .order_by(ratings_t.c.mu.desc(), ratings_t.c.account)
            .offset(offset)
            .limit(limit)
            .subquery()
        )
        query = (
            select(accounts_t.c.name, page.c.mu, page.c.sigma, page.c.games)
            .join(accounts_t, accounts_t.c.id == page.c.account)
            .order_by(page.c.mu.desc(), page.c.account)
        )
        with self.engine.connect() as c:
            total = c.execute(select(func.count()).select_from(ratings_t).where(*where))
            count = int(total.scalar_one())
            return count, c.execute(query).all()


def _totals(match: RatedMatch, seat: int) -> dict[str, int]:
    """The seat's team's totals over the match (none known: zeros)."""
    if not match.totals:
        return {"baazis": 0, "points": 0, "sweep_points": 0}
    t = match.totals[match.team(seat)]
    return {"baazis": t.baazis, "points": t.points, "sweep_points": t.sweep_points}


def forget_ratings(c: Connection, account: int) -> None:
    """A deleted account's ratings go; its rated matches stay for the other players, its
    seats a former player's (inside the deletion's transaction)."""
    c.execute(delete(ratings_t).where(ratings_t.c.account == account))
    c.execute(
        update(rating_changes_t).where(rating_changes_t.c.account == account).values(account=None)
    )

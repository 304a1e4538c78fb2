"""Reviews: star ratings with a short text, one per author per target row."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError
from agentworld.servers import schema as s
from agentworld.servers.manifest import Rule

from ..builder import EnvBuilder, Probe
from ._base import (
    Target,
    after_all,
    created_of,
    free_names,
    group_peers,
    page,
    paging_props,
    past_stamp,
    rows,
    seed_people,
    target,
    target_ids,
)

__all__ = ["Reviews"]

_TOOLS = ("add_review", "list_reviews", "get_rating_summary")
_TEXTS = {
    5: ("Excellent", "Everything was perfect, highly recommended."),
    4: ("Very good", "Smooth from start to finish, a couple of small things to improve."),
    3: ("Okay", "Did the job, nothing special."),
    2: ("Disappointing", "Slow responses and the details were not as promised."),
    1: ("Poor", "Would not use again; the problem was never resolved."),
}


def _table(t: Target) -> str:
    return f"{t.name}_reviews"


class Reviews:
    name = "reviews"
    sources: frozenset[str] = frozenset()

    def applies(self, archetype) -> bool:
        return free_names(archetype, _TOOLS, ("{t}_reviews",))

    def extend_schema(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        t = target(b.archetype, tables)
        b.schema.append(
            f"CREATE TABLE {_table(t)} (\n"
            f"    id TEXT PRIMARY KEY,\n"
            f"    {t.key} TEXT NOT NULL REFERENCES {t.table}(id),\n"
            f"    {t.person_column('author')},\n"
            f"    rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),\n"
            f"    title TEXT NOT NULL CHECK (length(title) BETWEEN 1 AND 120),\n"
            f"    body TEXT NOT NULL CHECK (length(body) <= 2000),\n"
            f"    created_at TEXT NOT NULL,\n"
            f"    UNIQUE ({t.key}, {t.person_arg('author')})\n);")

    def extend(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        t = target(b.archetype, tables)
        b.seeders.append(lambda conn, rng: _seed(conn, rng, t))
        _add_tools(b, t)
        author = t.person_arg("author")

        def twice(db):
            return [("add_review", {t.key: r[t.key], author: r[author], "rating": 4,
                                    "title": "Second thoughts"})
                    for r in rows(db, f"SELECT * FROM {_table(t)} ORDER BY id LIMIT 3")]

        b.add_rule(Rule("review-once-per-author", f"A person reviews {t.a_noun} at most once.",
                        ("add_review",), "CONFLICT"), twice)

        def out_of_range(db):
            return [("add_review", {**args, "rating": 6}) for args in _fresh(db, t)[:1]]

        b.add_rule(Rule("review-rating-range", "A rating is a whole number of stars from 1 to 5.",
                        ("add_review",), "VALIDATION_ERROR"), out_of_range)


def _seed(conn, rng, t: Target) -> None:
    authors, ids = seed_people(conn, t, rng, 60), target_ids(conn, t)
    if not authors or not ids:
        return
    out, born, peers = [], created_of(conn, t), group_peers(conn, t)
    for target_id in rng.sample(ids, min(len(ids), 45)):
        group = peers(target_id)
        pool = [a for a in authors if group is None or a in group] or authors
        for author in rng.sample(pool, min(len(pool), rng.choice((1, 1, 2, 3)))):
            rating = rng.choices((5, 4, 3, 2, 1), weights=(5, 4, 2, 1, 1))[0]
            title, body = _TEXTS[rating]
            out.append((f"rev_{len(out) + 1:06d}", target_id, author, rating, title, body,
                        past_stamp(rng, 1, 200, after_all(born, target_id, author))))
    conn.executemany(f"INSERT INTO {_table(t)} VALUES (?, ?, ?, ?, ?, ?, ?)", out)


def _schema(t: Target) -> dict[str, Any]:
    author = t.person_arg("author")
    return s.obj({"id": s.string("The review id."), t.key: s.string(),
                  author: t.person_out("author"), "rating": s.integer(minimum=1, maximum=5),
                  "title": s.string(max_length=120), "body": s.string(max_length=2000),
                  "created_at": s.string()})


def _fresh(db, t: Target) -> list[dict[str, Any]]:
    """add_review arguments by someone who has not reviewed that target yet."""
    author, table = t.person_arg("author"), _table(t)
    some = rows(db, f"SELECT r.{t.key}, o.{author} FROM {table} r JOIN {table} o ON "
                    f"o.{author} <> r.{author} WHERE NOT EXISTS (SELECT 1 FROM {table} x WHERE "
                    f"x.{t.key} = r.{t.key} AND x.{author} = o.{author}) ORDER BY r.id, o.id "
                    "LIMIT 3")
    return [{t.key: r[t.key], author: r[author], "rating": 4, "title": "Good experience",
             "body": "Friendly staff and quick answers."} for r in some]


def _add_tools(b: EnvBuilder, t: Target) -> None:
    table, author = _table(t), t.person_arg("author")

    def add_review(ctx: ToolContext, rating: int, title: str, body: str = "",
                   **who: str) -> dict[str, Any]:
        row = t.require(ctx, who[t.key])
        t.check_person(ctx, who[author])
        if ctx.one(f"SELECT id FROM {table} WHERE {t.key} = ? AND {author} = ?",
                   (row["id"], who[author])):
            raise ToolError(ErrorCode.CONFLICT, f"{who[author]} has already reviewed {t.noun} "
                            f"{row['id']}")
        new = {"id": ctx.ids.new("rev"), t.key: row["id"], author: who[author],
               "rating": rating, "title": title.strip() or title, "body": body,
               "created_at": ctx.clock.iso()}
        ctx.insert(table, new)
        b.mutated(ctx, table, new["id"], "create")
        return {"review": new}

    b.tools.tool(
        name="add_review",
        description=f"Review {t.a_noun}: 1 to 5 stars, a title and an optional text. Each "
                    f"person reviews {t.a_noun} at most once.",
        input=s.obj({t.key: t.key_schema(), author: t.person_schema("writes the review"),
                     "rating": s.integer("Stars, 1 to 5.", minimum=1, maximum=5),
                     "title": s.string("A short headline.", max_length=120, min_length=1),
                     "body": s.string("The review text.", max_length=2000)},
                    required=[t.key, author, "rating", "title"]),
        output=s.obj({"review": _schema(t)}))(add_review)

    def list_reviews(ctx: ToolContext, min_rating: int | None = None, limit: int = 20,
                     cursor: str | None = None, **key: str) -> dict[str, Any]:
        where, params = [], []
        if key.get(t.key) is not None:
            t.require(ctx, key[t.key])
            where.append(f"{t.key} = ?")
            params.append(key[t.key])
        if min_rating is not None:
            where.append("rating >= ?")
            params.append(min_rating)
        return page(ctx, select=table, where=where, params=params, order="created_at DESC, id",
                    limit=limit, cursor=cursor, key="reviews")

    b.tools.tool(
        name="list_reviews", read_only=True,
        description=f"List reviews, of one {t.noun} or of all, newest first, paged; optionally "
                    "only those with at least some stars.",
        input=s.obj({t.key: s.identifier(f"Only reviews of this {t.noun}."),
                     "min_rating": s.integer("Least stars.", minimum=1, maximum=5),
                     **paging_props()}, required=[]),
        output=s.page_of(_schema(t), "reviews"))(list_reviews)

    def get_rating_summary(ctx: ToolContext, **key: str) -> dict[str, Any]:
        row = t.require(ctx, key[t.key])
        counts = dict(ctx.db.execute(f"SELECT rating, COUNT(*) FROM {table} WHERE {t.key} = ? "
                                     "GROUP BY rating", (row["id"],)).fetchall())
        total = sum(counts.values())
        average = round(sum(k * v for k, v in counts.items()) / total, 2) if total else None
        return {t.key: row["id"], "reviews": total, "average_rating": average,
                "stars": {str(k): counts.get(k, 0) for k in range(1, 6)}}

    b.tools.tool(
        name="get_rating_summary", read_only=True,
        description=f"{t.a_noun.capitalize()}'s rating: how many reviews, the average stars "
                    "(null when "
                    "none) and how many reviews gave each number of stars.",
        input=s.obj({t.key: t.key_schema()}),
        output=s.obj({t.key: s.string(), "reviews": s.integer(minimum=0),
                      "average_rating": s.nullable(s.number(minimum=1, maximum=5)),
                      "stars": s.obj({str(k): s.integer(minimum=0) for k in range(1, 6)})}))(
        get_rating_summary)

    def reviewed(db):
        return rows(db, f"SELECT {t.key} FROM {table} ORDER BY id LIMIT 3")

    b.probes["add_review"] = Probe(lambda db: _fresh(db, t),
                                   lambda db: [{**a, t.key: t.missing} for a in _fresh(db, t)],
                                   "NOT_FOUND", changes=table)
    b.probes["list_reviews"] = Probe(lambda db: [{}] + reviewed(db),
                                     lambda db: [{t.key: t.missing}], "NOT_FOUND")
    b.probes["get_rating_summary"] = Probe(reviewed, lambda db: [{t.key: t.missing}],
                                           "NOT_FOUND")

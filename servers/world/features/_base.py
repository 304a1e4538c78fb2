"""What feature modules share: the target they attach to, author columns, paging and ECB rates.

A feature attaches to the archetype's primary entity (the *target*). Its tables refer to the
target's table through a ``<target>_id`` column, and name people through a reference to the
archetype's people entity, or through a plain name when the archetype has none.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from dataclasses import dataclass
from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError
from agentworld.servers import schema as s
from agentworld.servers.envs._people import people

from ..data import table
from ..describe import a_an
from ..entity_schema import EPOCH, id_prefix
from ..entity_tools import decode_cursor
from ..spec import Archetype, Entity

__all__ = ["Target", "target", "entity_tool_names", "free_names", "ecb_rates", "page",
           "MAX_PAGE", "seed_people", "words", "paging_props", "target_ids", "rows",
           "editable", "past_stamp", "later", "EPOCH", "created_of", "after_all", "group_peers",
           "person_for"]

MAX_PAGE = 100

# Currencies the ECB no longer fixes (replaced by the euro, redenominated or suspended): the
# rates file still carries their last fixing, which is not a rate of 2026-02-27.
_RETIRED = frozenset({"CYP", "EEK", "HRK", "LTL", "LVL", "MTL", "ROL", "RUB", "SIT", "SKK",
                      "TRL"})


def words(name: str) -> str:
    return name.replace("_", " ")


@dataclass(frozen=True)
class Target:
    """The primary entity a feature attaches to, and the people entity that authors rows."""

    entity: Entity
    table: str
    people: Entity | None
    people_table: str
    archetype: Archetype | None = None  # whose domain vocabulary the feature speaks

    @property
    def name(self) -> str:
        return self.entity.name

    @property
    def key(self) -> str:
        """The column of a feature table that refers to a target row."""
        return f"{self.entity.name}_id"

    @property
    def noun(self) -> str:
        return words(self.entity.name)

    @property
    def plural(self) -> str:
        return words(self.entity.plural)

    @property
    def frozen(self) -> tuple[str, ...]:
        return self.entity.lifecycle.frozen if self.entity.lifecycle else ()

    @property
    def missing(self) -> str:
        return f"{id_prefix(self.entity)}_0000000000"

    @property
    def owner_field(self) -> str:
        """The target's field that names its person (e.g. a reservation's guest), or ""."""
        if self.people is None:
            return ""
        return next((f.name for f in self.entity.fields
                     if f.kind == "ref" and f.ref == self.people.name), "")

    @property
    def a_noun(self) -> str:
        """The noun with its article: "an incident", "a booking"."""
        return a_an(self.noun)

    def key_schema(self) -> dict[str, Any]:
        return s.identifier(f"Id of the {self.noun}, as search_{self.entity.plural} returns it, "
                            f"e.g. {id_prefix(self.entity)}_000001.")

    def require(self, ctx: ToolContext, ident: str) -> dict[str, Any]:
        return ctx.require(self.table, ident, kind=self.noun)

    # People columns: a reference to the people entity, or a plain name.
    def person_column(self, column: str, *, required: bool = True) -> str:
        null = " NOT NULL" if required else ""
        if self.people is not None:
            return f"{column}_id TEXT{null} REFERENCES {self.people_table}(id)"
        return f"{column}_name TEXT{null} CHECK (length({column}_name) BETWEEN 1 AND 120)"

    def person_arg(self, column: str) -> str:
        return f"{column}_id" if self.people is not None else f"{column}_name"

    def person_schema(self, what: str) -> dict[str, Any]:
        if self.people is not None:
            return s.identifier(f"The id of the {words(self.people.name)} who {what}.")
        return s.string(f"The full name of the person who {what}.", max_length=120, min_length=1)

    def person_out(self, column: str) -> dict[str, Any]:
        return s.string() if self.people is not None else s.string(max_length=120)

    def check_person(self, ctx: ToolContext, value: str) -> None:
        if self.people is not None:
            ctx.require(self.people_table, value, kind=words(self.people.name))
        elif not value.strip():
            raise ToolError(ErrorCode.VALIDATION_ERROR, "a person's name may not be blank")

    def missing_person(self) -> str:
        return f"{id_prefix(self.people)}_0000000000" if self.people else ""


def target(archetype: Archetype, tables: dict[str, str]) -> Target:
    entity = archetype.entity(archetype.primary)
    people = archetype.entity(archetype.people) if archetype.people else None
    return Target(entity, tables[entity.name], people, tables[people.name] if people else "",
                  archetype)


def entity_tool_names(archetype: Archetype) -> set[str]:
    """Every name an entity tool of the archetype may take."""
    names: set[str] = set()
    for e in archetype.entities:
        names |= {f"search_{e.plural}", f"get_{e.name}", f"create_{e.name}", f"update_{e.name}"}
        for t in e.lifecycle.transitions if e.lifecycle else ():
            names.add(f"{t.verb}_{e.name}")
    return names


def free_names(archetype: Archetype, tools: tuple[str, ...], tables: tuple[str, ...]) -> bool:
    """Whether a feature's tool and table names (``{t}`` = the primary's name) are unused."""
    primary = archetype.primary
    taken_tables = {e.plural for e in archetype.entities}
    return (not {t.format(t=primary) for t in tools} & entity_tool_names(archetype)
            and not {t.format(t=primary) for t in tables} & taken_tables)


def ecb_rates() -> dict[str, float]:
    """Units of each currency per euro, ECB reference rates of 2026-02-27."""
    return {r["currency"]: float(r["per_eur"]) for r in table("rates")
            if r["currency"] not in _RETIRED}


def page(ctx: ToolContext, *, select: str, where: list[str], params: list[Any], order: str,
         limit: int, cursor: str | None, key: str, out=dict) -> dict[str, Any]:
    """One page of ``SELECT {select} ... WHERE {where}``: items, next_cursor and total.

    Raises VALIDATION_ERROR for a cursor this tool did not return.
    """
    offset = decode_cursor(cursor)
    clause = " AND ".join(where) or "1 = 1"
    total = ctx.scalar(f"SELECT COUNT(*) FROM {select} WHERE {clause}", params)
    rows = ctx.all(f"SELECT * FROM {select} WHERE {clause} ORDER BY {order} LIMIT ? OFFSET ?",
                   (*params, limit, offset))
    more = offset + len(rows) < total
    return {key: [out(r) for r in rows], "next_cursor": str(offset + len(rows)) if more else None,
            "total": total}


def paging_props() -> dict[str, Any]:
    return {"limit": s.integer("Page size.", minimum=1, maximum=MAX_PAGE),
            "cursor": s.string("From the previous page's next_cursor.", max_length=12)}


def seed_people(conn: sqlite3.Connection, t: Target, rng, count: int = 40) -> list[str]:
    """Values for a person column in seeded rows: people ids, or generated full names."""
    if t.people is not None:
        ids = [r[0] for r in conn.execute(f"SELECT id FROM {t.people_table} ORDER BY id")]
        return rng.sample(ids, min(count, len(ids))) if ids else []
    names = [p.name for p in people(count, seed=rng.randint(0, 2**31), domain="example.org")]
    return list(dict.fromkeys(names))  # distinct: two generated people may share a name


def target_ids(conn: sqlite3.Connection, t: Target, where: str = "1 = 1",
               params: tuple = ()) -> list[str]:
    return [r[0] for r in conn.execute(
        f"SELECT id FROM {t.table} WHERE {where} ORDER BY id", params)]


def rows(db: sqlite3.Connection, sql: str, params: tuple = ()) -> list[dict[str, Any]]:
    return [dict(r) for r in db.execute(sql, params)]


def editable(t: Target) -> str:
    """SQL condition on the target table: a row that is not in a frozen state."""
    if not t.frozen:
        return "1 = 1"
    return "status NOT IN (" + ", ".join("'" + f.replace("'", "''") + "'" for f in t.frozen) + ")"


# The environment's clock starts at 09:00 on the epoch: seeded activity ends before it.
_CLOCK = dt.datetime.combine(EPOCH, dt.time(9, 0))


def past_stamp(rng, low: int = 1, high: int = 120, after: str | None = None) -> str:
    """A seeded timestamp between ``high`` and ``low`` days before the epoch, in office hours;
    never before ``after`` (the row it belongs to was created then) nor after the clock."""
    day = EPOCH - dt.timedelta(days=rng.randint(low, high))
    if after:
        first = dt.date.fromisoformat(after[:10])
        if day < first:
            span = max((EPOCH - dt.timedelta(days=1) - first).days, 0)
            day = first + dt.timedelta(days=rng.randint(0, span) if span else 0)
    minute = rng.randint(0, 599)
    stamp = f"{day.isoformat()}T{8 + minute // 60:02d}:{minute % 60:02d}:00Z"
    if after and stamp < after:
        stamp = later(after, rng.randint(5, 240))
    return stamp


def later(stamp: str, minutes: int) -> str:
    """A timestamp ``minutes`` after ``stamp`` (both ``YYYY-MM-DDTHH:MM:SSZ``), and before the
    environment's clock starts."""
    when = dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ") + dt.timedelta(minutes=minutes)
    start = dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ")
    when = max(min(when, _CLOCK - dt.timedelta(minutes=1)), start)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def created_of(conn: sqlite3.Connection, t: Target) -> dict[str, str]:
    """When each target row, and each person, was created: feature rows about them come after
    (ids of the two tables never share a prefix)."""
    born = dict(conn.execute(f"SELECT id, created_at FROM {t.table}"))
    if t.people is not None:
        born.update(conn.execute(f"SELECT id, created_at FROM {t.people_table}"))
    return born


def _links(conn: sqlite3.Connection, table: str) -> dict[str, str]:
    return {r[3]: r[2] for r in conn.execute(f"PRAGMA foreign_key_list({table})")}


def group_peers(conn: sqlite3.Connection, t: Target):
    """A function from a target row's id to the people of its group (the members of the DAO a
    proposal belongs to), or to None when people and targets share no group table."""
    if t.people is None:
        return lambda target_id: None
    people_links = _links(conn, t.people_table)
    shared = [(col_t, col_p) for col_t, group in _links(conn, t.table).items()
              for col_p, group_p in people_links.items()
              if group == group_p and group not in (t.table, t.people_table)]
    if not shared:
        return lambda target_id: None
    cols_t = ", ".join(c for c, _ in shared)
    cols_p = ", ".join(c for _, c in shared)
    key_of = {r[0]: tuple(r[1:]) for r in conn.execute(f"SELECT id, {cols_t} FROM {t.table}")}
    members: dict[tuple, list[str]] = {}
    for r in conn.execute(f"SELECT id, {cols_p} FROM {t.people_table} ORDER BY id"):
        members.setdefault(tuple(r[1:]), []).append(r[0])
    return lambda target_id: members.get(key_of.get(target_id), [])


def person_for(rng, people: list[str], peers: list[str] | None) -> str:
    """A person to act on a target row: one of its group's when it has a group."""
    if peers is None:
        return rng.choice(people)
    return rng.choice([p for p in people if p in set(peers)] or peers or people)


def after_all(born: dict[str, str], *ids: str) -> str:
    """The latest creation among the rows ``ids`` name (people given by name count as none)."""
    return max((born.get(i, "") for i in ids), default="")

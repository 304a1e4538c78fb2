"""Scheduling: bookable time slots per target row (appointments, viewings, sessions).

"Now" is the session clock (the epoch is 2026-03-02T09:00Z): a slot that has started cannot be
booked, and nothing is booked on a public holiday of the region.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError
from agentworld.servers import schema as s
from agentworld.servers.manifest import Rule

from ..builder import EnvBuilder, Probe
from ..spec import NoOverlap
from ._base import (
    EPOCH,
    Target,
    after_all,
    created_of,
    editable,
    free_names,
    group_peers,
    page,
    paging_props,
    past_stamp,
    person_for,
    rows,
    seed_people,
    target,
)

__all__ = ["Scheduling"]
_ID_SLOT = s.identifier("Id of the slot, as list_slots returns it.")

_TOOLS = ("list_slots", "book_slot", "cancel_slot")
_TIMES = ("09:00", "10:30", "13:00", "14:30", "16:00")
STATES = ("open", "booked")


def _table(t: Target) -> str:
    return f"{t.name}_slots"


class Scheduling:
    name = "scheduling"
    sources = frozenset({"holidays"})

    def applies(self, archetype) -> bool:
        """For services whose primary entity is a resource people book, not a booking."""
        primary = archetype.entity(archetype.primary)
        is_booking = any(isinstance(c, NoOverlap) for c in primary.constraints)
        return not is_booking and free_names(archetype, _TOOLS, ("{t}_slots",))

    def extend_schema(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        t = target(b.archetype, tables)
        who = t.person_arg("booked_by")
        b.schema.append(
            f"CREATE TABLE {_table(t)} (\n"
            f"    id TEXT PRIMARY KEY,\n"
            f"    {t.key} TEXT NOT NULL REFERENCES {t.table}(id),\n"
            f"    slot_date TEXT NOT NULL CHECK (slot_date GLOB "
            f"'[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),\n"
            f"    start_time TEXT NOT NULL CHECK (start_time GLOB '[0-2][0-9]:[0-5][0-9]'),\n"
            f"    duration_minutes INTEGER NOT NULL CHECK (duration_minutes BETWEEN 15 AND 240),\n"
            f"    status TEXT NOT NULL CHECK (status IN ('open', 'booked')),\n"
            f"    {t.person_column('booked_by', required=False)},\n"
            f"    booked_at TEXT,\n"
            f"    UNIQUE ({t.key}, slot_date, start_time),\n"
            f"    CHECK ((status = 'booked') = ({who} IS NOT NULL AND booked_at IS NOT NULL))\n);\n"
            f"CREATE INDEX ix_{_table(t)}_date ON {_table(t)}(slot_date, start_time);")

    def extend(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        t = target(b.archetype, tables)
        holidays = {h["date"]: h["name"] for h in b.region.holidays}
        b.seeders.append(lambda conn, rng: _seed(conn, rng, t, holidays))
        _add_tools(b, t, holidays)
        _add_probes(b, t, holidays)
        _add_rules(b, t, holidays)


def _seed(conn, rng, t: Target, holidays: dict[str, str]) -> None:
    people = seed_people(conn, t, rng, 40)
    ids = [r["id"] for r in rows(conn, f"SELECT id FROM {t.table} WHERE {editable(t)} "
                                       "ORDER BY id")]
    if not ids or not people:
        return
    upcoming = sorted(d for d in holidays if d > EPOCH.isoformat())[:1]
    days = [EPOCH + dt.timedelta(days=n) for n in range(-6, 22)]
    dates = sorted({d.isoformat() for d in days if d.weekday() < 5} | set(upcoming))
    out, born, peers = [], created_of(conn, t), group_peers(conn, t)
    for target_id in rng.sample(ids, min(len(ids), 6)):
        duration = rng.choice((30, 45, 60))
        for day in dates:
            for start in rng.sample(_TIMES, 2) + ["09:00"] * (day in upcoming):
                if any(r[1] == target_id and r[2] == day and r[3] == start for r in out):
                    continue
                booked = day not in holidays and (day < EPOCH.isoformat()
                                                  or rng.random() < 0.35)
                who = person_for(rng, people, peers(target_id)) if booked else None
                out.append((f"slt_{len(out) + 1:06d}", target_id, day, start, duration,
                            "booked" if booked else "open", who,
                            past_stamp(rng, 8, 30, after_all(born, target_id, who))
                            if booked else None))
    # A few past slots nobody took, as a real calendar has.
    for row in [r for r in out if r[2] < EPOCH.isoformat()][:4]:
        out[out.index(row)] = (*row[:5], "open", None, None)
    conn.executemany(f"INSERT INTO {_table(t)} VALUES (?, ?, ?, ?, ?, ?, ?, ?)", out)


def _schema(t: Target) -> dict[str, Any]:
    who = t.person_arg("booked_by")
    return s.obj({"id": s.string("The slot id."), t.key: s.string(),
                  "slot_date": s.string("YYYY-MM-DD."), "start_time": s.string("HH:MM, local."),
                  "duration_minutes": s.integer(minimum=15, maximum=240),
                  "status": s.enum(STATES), who: s.nullable(t.person_out("booked_by")),
                  "booked_at": s.nullable(s.string())})


def _add_tools(b: EnvBuilder, t: Target, holidays: dict[str, str]) -> None:
    table, who = _table(t), t.person_arg("booked_by")

    def list_slots(ctx: ToolContext, date: str | None = None, status: str | None = None,
                   limit: int = 20, cursor: str | None = None, **key: str) -> dict[str, Any]:
        where, params = [], []
        for column, value in ((t.key, key.get(t.key)), ("slot_date", date), ("status", status)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        return page(ctx, select=table, where=where, params=params,
                    order="slot_date, start_time, id", limit=limit, cursor=cursor, key="slots")

    b.tools.tool(
        name="list_slots", read_only=True,
        description=f"List the time slots of {t.plural}, earliest "
                    f"first, paged; filter by {t.noun}, by date and by status (open or booked).",
        input=s.obj({t.key: s.identifier(f"Only this {t.noun}'s slots."),
                     "date": s.date("Only slots on this day."),
                     "status": s.enum(STATES, "Only open (free) slots, or only booked ones."),
                     **paging_props()}, required=[]),
        output=s.page_of(_schema(t), "slots"))(list_slots)

    def book_slot(ctx: ToolContext, slot_id: str, **person: str) -> dict[str, Any]:
        slot = ctx.require(table, slot_id, kind="slot")
        t.check_person(ctx, person[who])
        if f"{slot['slot_date']}T{slot['start_time']}:00Z" <= ctx.clock.iso():
            raise ToolError(ErrorCode.PRECONDITION_FAILED, f"slot {slot_id} "
                            f"({slot['slot_date']} {slot['start_time']}) is in the past")
        if slot["slot_date"] in holidays:
            raise ToolError(ErrorCode.PRECONDITION_FAILED, f"{slot['slot_date']} is a public "
                            f"holiday ({holidays[slot['slot_date']]}); nothing is booked then")
        if slot["status"] == "booked":
            raise ToolError(ErrorCode.CONFLICT, f"slot {slot_id} is already booked")
        changes = {"status": "booked", who: person[who], "booked_at": ctx.clock.iso()}
        ctx.update(table, slot_id, changes)
        b.mutated(ctx, table, slot_id, "update")
        return {"slot": {**slot, **changes}}

    b.tools.tool(
        name="book_slot",
        description=f"Book an open time slot of {t.a_noun} for someone. A slot already booked, "
                    "one that has already started, or one on a public holiday cannot be booked.",
        input=s.obj({"slot_id": _ID_SLOT,
                     who: t.person_schema("takes the slot")}),
        output=s.obj({"slot": _schema(t)}))(book_slot)

    def cancel_slot(ctx: ToolContext, slot_id: str) -> dict[str, Any]:
        slot = ctx.require(table, slot_id, kind="slot")
        if slot["status"] != "booked":
            raise ToolError(ErrorCode.PRECONDITION_FAILED, f"slot {slot_id} is not booked")
        if f"{slot['slot_date']}T{slot['start_time']}:00Z" <= ctx.clock.iso():
            raise ToolError(ErrorCode.PRECONDITION_FAILED, f"slot {slot_id} has already started")
        changes = {"status": "open", who: None, "booked_at": None}
        ctx.update(table, slot_id, changes)
        b.mutated(ctx, table, slot_id, "update")
        return {"slot": {**slot, **changes}}

    b.tools.tool(
        name="cancel_slot", destructive=True,
        description=f"Cancel the booking of {t.a_noun}'s time slot, so the slot is open again. "
                    "Only a booked slot that has not started can be cancelled.",
        input=s.obj({"slot_id": _ID_SLOT}),
        output=s.obj({"slot": _schema(t)}))(cancel_slot)


def _add_probes(b: EnvBuilder, t: Target, holidays: dict[str, str]) -> None:
    table, who = _table(t), t.person_arg("booked_by")

    def future(db, status: str):
        marks = ", ".join("?" for _ in holidays) or "''"
        return rows(db, f"SELECT * FROM {table} WHERE status = ? AND slot_date > ? AND "
                        f"slot_date NOT IN ({marks}) ORDER BY slot_date, id LIMIT 3",
                    (status, EPOCH.isoformat(), *holidays))

    def person(db):
        return rows(db, f"SELECT {who} FROM {table} WHERE {who} IS NOT NULL ORDER BY id LIMIT 1")

    b.probes["list_slots"] = Probe(lambda db: [{}, {"status": "open"}],
                                   lambda db: [{"cursor": "page-two"}], "VALIDATION_ERROR")
    b.probes["book_slot"] = Probe(
        lambda db: [{"slot_id": r["id"], who: p[who]} for r in future(db, "open")
                    for p in person(db)],
        lambda db: [{"slot_id": "slt_0000000000", who: p[who]} for p in person(db)],
        "NOT_FOUND", changes=table)
    b.probes["cancel_slot"] = Probe(
        lambda db: [{"slot_id": r["id"]} for r in future(db, "booked")],
        lambda db: [{"slot_id": r["id"]} for r in future(db, "open")], "PRECONDITION_FAILED",
        changes=table)


def _add_rules(b: EnvBuilder, t: Target, holidays: dict[str, str]) -> None:
    table, who = _table(t), t.person_arg("booked_by")

    def calls(db, where: str, params: tuple = ()):
        some = rows(db, f"SELECT * FROM {table} WHERE {where} ORDER BY slot_date, id LIMIT 3",
                    params)
        person = rows(db, f"SELECT {who} FROM {table} WHERE {who} IS NOT NULL ORDER BY id "
                          "LIMIT 1")
        return [("book_slot", {"slot_id": r["id"], who: p[who]}) for r in some for p in person]

    today = EPOCH.isoformat()
    b.add_rule(Rule("slot-once", "A booked slot cannot be booked again.", ("book_slot",),
                    "CONFLICT"),
               lambda db: calls(db, "status = 'booked' AND slot_date > ?", (today,)))
    b.add_rule(Rule("slot-not-past", "A slot that has already started cannot be booked.",
                    ("book_slot",), "PRECONDITION_FAILED"),
               lambda db: calls(db, "status = 'open' AND slot_date < ?", (today,)))
    upcoming = [d for d in holidays if d > today]
    if not upcoming:
        return
    marks = ", ".join("?" for _ in upcoming)
    b.add_rule(Rule("slot-not-on-holiday", f"Nothing is booked on a public holiday of "
                    f"{b.region.name}.", ("book_slot",), "PRECONDITION_FAILED"),
               lambda db: calls(db, f"status = 'open' AND slot_date IN ({marks})",
                                tuple(upcoming)))

"""Dates a domain expert would believe: in order within a row and across related rows, in the
past where they record something that happened, and consistent with the row's state.

Which columns start or end a period, record an intake, or must lie in the past is read from
their names (a heuristic over the words the archetypes use); a transition's ``stamp`` and a
``DateOrder`` constraint are read from the archetype.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..spec import DateOrder, Entity
from .model import Finding, Subject, Table, day, is_date, words

__all__ = ["date_order", "child_before_parent", "after_clock", "state_date", "date_roles"]

_SUFFIXES = frozenset({"on", "at", "date", "day", "time"})
# (earlier, later): a column named with the first word comes no later than its twin with the
# second ("window_start" / "window_end", "issued_on" / "expires_on").
_PAIRS = (("start", "end"), ("starts", "ends"), ("started", "ended"), ("started", "finished"),
          ("started", "completed"), ("from", "until"), ("from", "to"), ("opens", "closes"),
          ("opened", "closed"), ("opened", "resolved"), ("begin", "end"), ("first", "last"),
          ("in", "out"), ("departs", "arrives"), ("departs", "returns"),
          ("arrival", "departure"), ("issued", "expires"), ("admitted", "discharged"),
          ("shipped", "delivered"), ("collected", "received"), ("sent", "delivered"),
          ("created", "updated"), ("ordered", "delivered"), ("submitted", "decided"))
# Dates recorded when a row is entered: the row cannot exist before what it records.
_INTAKE = frozenset({"received", "submitted", "applied", "requested", "ordered", "reported",
                     "filed", "logged", "opened", "asked", "posted", "placed", "registered"})
# Participles that name something planned rather than done.
_NOT_PAST = frozenset({"expected", "scheduled", "planned", "projected", "estimated", "intended",
                       "proposed", "needed", "required", "anticipated", "targeted", "extended"})
_IRREGULAR_PAST = frozenset({"sent", "paid", "sold", "spent", "built", "written", "taken",
                             "begun", "done", "seen", "held", "won", "read", "met", "born",
                             "birth", "occurred", "as"})
_FUTURE_TIMESTAMPS = frozenset({"scheduled", "send", "due", "expires", "starts", "ends", "remind",
                                "notify", "run", "next", "until", "deliver"})

_START = frozenset({"start", "starts", "begin", "begins", "from", "opens", "kickoff", "departs",
                    "arrival"})
_END = frozenset({"end", "ends", "until", "closes", "expires", "expiry", "expiration",
                  "departure", "returns"})
# An expiry ends a row's validity, not its activity: a posting closed before it expires is
# normal, an expired one whose expiry is still ahead is not.
_EXPIRY = frozenset({"expires", "expiry", "expiration"})
_EVENT_DAY = frozenset({"session", "sits", "performs", "route", "work", "slot", "scheduled",
                        "event", "show", "air", "street", "publish", "release", "launch"})
_PUBLISH = frozenset({"publish", "published", "release", "released", "street", "air", "aired",
                      "print", "printed", "launch", "launched", "issue"})

# Dates that belong to something other than the row's own life (a snooze, an embargo, a
# password) say nothing about its state.
_NOT_LIFE = frozenset({"snooze", "embargo", "password", "license", "licence", "token"})
_FUTURE_STATES = frozenset({"scheduled", "upcoming", "planned", "not_started", "announced",
                            "pre_admitted", "tentative"})
_LIVE_STATES = frozenset({"active", "open", "voting", "live", "running", "in_progress",
                          "ongoing", "started", "recruiting", "on_sale", "selling", "trading",
                          "checked_in", "admitted", "valid", "issued", "enabled", "current",
                          "subscribed", "trialing", "in_use", "effective", "snoozed"})
_ENDED_STATES = frozenset({"closed", "ended", "completed", "finished", "expired", "lapsed",
                           "passed", "executed", "defeated", "checked_out", "discharged",
                           "returned", "aired", "flown", "done", "token_expired"})
_EXPIRED_STATES = frozenset({"expired", "lapsed", "token_expired"})
_HELD_STATES = frozenset({"completed", "finished", "done", "checked_out", "discharged", "aired",
                          "flown", "no_show", "attended", "held"})
_PUBLISHED_STATES = frozenset({"published", "printed", "released", "aired", "broadcast",
                               "posted", "sent", "live"})


def _stem(name: str) -> tuple[str, ...]:
    return tuple(w for w in words(name) if w not in _SUFFIXES)


def _later(a: str, b: str) -> bool:
    """Whether ``a`` is strictly later than ``b``, at the precision both have."""
    if len(a) > 10 and len(b) > 10:
        return a > b
    return day(a) > day(b)


def _stamps(entity: Entity | None) -> dict[str, str]:
    """Stamp column -> the state whose transition stamps it."""
    if entity is None or entity.lifecycle is None:
        return {}
    return {t.stamp: t.target for t in entity.lifecycle.transitions if t.stamp}


def _pairs(table: Table, dates: list[str]) -> Iterator[tuple[str, str, str]]:
    """(earlier column, later column, why) for every ordered pair this table declares or names."""
    seen = set()
    for c in table.entity.constraints if table.entity else ():
        if isinstance(c, DateOrder):
            seen.add((c.start, c.end))
            yield c.start, c.end, "declared order"
    stems = {_stem(d): d for d in dates}
    for d in dates:
        stem = _stem(d)
        for early, late in _PAIRS:
            if early in stem:
                twin = stems.get(tuple(late if w == early else w for w in stem))
                if twin and twin != d and (d, twin) not in seen:
                    seen.add((d, twin))
                    yield d, twin, "named pair"


def date_order(subject: Subject) -> Iterator[Finding]:
    """Within a row: declared and named date pairs in order; stamps between created and updated;
    intake dates no later than the row's creation."""
    for table in subject.tables.values():
        dates = table.date_columns()
        pairs = list(_pairs(table, dates))
        stamps = _stamps(table.entity)
        # An intake date that another date precedes (collected, then received) is not when
        # the row was entered.
        later = {late for _, late, _ in pairs}
        intake = [d for d in dates
                  if d not in stamps and d not in later and set(words(d)) & _INTAKE]
        for row in table.rows:
            for message in _row_order(row, pairs, stamps, intake):
                yield subject.finding(table.name, row.get("id"), "date_order", message)


def _row_order(row: dict, pairs: list[tuple[str, str, str]], stamps: dict[str, str],
               intake: list[str]) -> Iterator[str]:
    for early, late, why in pairs:
        a, b = row.get(early), row.get(late)
        if is_date(a) and is_date(b) and _later(a, b):
            yield f"{early} {a} is after {late} {b} ({why})"
    created, updated = row.get("created_at"), row.get("updated_at")
    for stamp in stamps:
        value = row.get(stamp)
        if not is_date(value):
            continue
        if is_date(created) and day(value) < day(created):
            yield f"{stamp} {value} is before the row was created ({created})"
        elif is_date(updated) and day(value) > day(updated):
            yield f"{stamp} {value} is after the row was last updated ({updated})"
    for column in intake:
        value = row.get(column)
        if is_date(value) and is_date(created) and day(created) < day(value):
            yield f"the row was created {created}, before the {column} {value} it records"


def child_before_parent(subject: Subject) -> Iterator[Finding]:
    """A row created before a row it refers to."""
    for table in subject.tables.values():
        if "created_at" not in table.columns:
            continue
        for row in table.rows:
            created = row.get("created_at")
            if not is_date(created):
                continue
            for column, parent_table, parent in subject.parents(table, row):
                if parent is row:
                    continue
                if is_date(parent.get("created_at")) and _later(parent["created_at"], created):
                    yield subject.finding(
                        table.name, row.get("id"), "child_before_parent",
                        f"created {created}, before its {column} {parent['id']} "
                        f"({parent_table.name}, created {parent['created_at']})")


def _past_only(table: Table, column: str) -> bool:
    """Whether a date column records something that has already happened."""
    tokens = words(column)
    if column in _stamps(table.entity):
        return True
    if tokens[-1:] == ["at"]:
        return not set(tokens) & (_FUTURE_TIMESTAMPS | _NOT_PAST)
    if tokens[-1:] not in (["on"], ["seen"]) and column != "date_of_birth":
        return False
    head = tokens[0] if tokens[0] not in ("first", "last") else tokens[1]
    if head in _NOT_PAST:
        return False
    return head.endswith("ed") or head in _IRREGULAR_PAST or column == "date_of_birth"


def after_clock(subject: Subject) -> Iterator[Finding]:
    """A date that records something done, later than the environment's clock. A row still
    planned (pre-admitted, scheduled) may carry the date its event is planned for."""
    for table in subject.tables.values():
        stamps = _stamps(table.entity)
        for column in table.date_columns():
            if not _past_only(table, column):
                continue
            plan = column not in stamps and words(column)[-1] != "at"
            for row in table.rows:
                value = row.get(column)
                if plan and row.get("status") in _FUTURE_STATES:
                    continue
                if is_date(value) and _later(value, subject.clock):
                    yield subject.finding(table.name, row.get("id"), "after_clock",
                                          f"{column} {value} is after the clock "
                                          f"({subject.clock})")


def date_roles(column: str) -> set[str]:
    """The parts a date column plays in its row's life: start, end, day (of a one-off event),
    publish."""
    stem = set(_stem(column))
    tokens = set(words(column))
    roles: set[str] = set()
    if tokens & _NOT_LIFE:
        return roles
    if stem & _START or column == "check_in":
        roles.add("start")
    if stem & _END or column == "check_out":
        roles.add("end")
    if stem & _EXPIRY:
        roles.add("expiry")
    if stem & _EVENT_DAY or column in ("scheduled_for",):
        roles.add("day")
    if tokens & _PUBLISH:
        roles.add("publish")
    return roles


def _reachable(entity: Entity, state: str) -> set[str]:
    out, todo = {state}, [state]
    while todo:
        current = todo.pop()
        for t in entity.lifecycle.transitions:
            if current in t.sources and t.target not in out:
                out.add(t.target)
                todo.append(t.target)
    return out


def _state_problem(status: str, roles: set[str], value: str, clock: str) -> str:
    future, past = day(value) > day(clock), day(value) < day(clock)
    if status in _FUTURE_STATES and roles & {"start", "day"} and past:
        return "is in the past, but the row has not started yet"
    if status in _LIVE_STATES and "start" in roles and future:
        return "is in the future, but the row is already under way"
    if status in _LIVE_STATES and "end" in roles and past:
        return "has passed, but the row is still live"
    if status in _EXPIRED_STATES and "expiry" in roles and future:
        return "is in the future, but the row has already expired"
    if status in _ENDED_STATES and "end" in roles and "expiry" not in roles and future:
        return "is in the future, but the row has already ended"
    if status in _HELD_STATES and "day" in roles and future:
        return "is in the future, but the row has already taken place"
    if status in _PUBLISHED_STATES and "publish" in roles and future:
        return "is in the future, but the row is already out"
    return ""


def state_date(subject: Subject) -> Iterator[Finding]:
    """A state its dates contradict (expired but not past, scheduled but past, voting after the
    vote closed), and a transition's stamp set in a state the transition never led to."""
    for table in subject.tables.values():
        if "status" not in table.columns:
            continue
        roles = {c: date_roles(c) for c in table.date_columns() if c not in ("created_at",
                                                                          "updated_at")}
        stamps = _stamps(table.entity)
        reach = {s: _reachable(table.entity, target) for s, target in stamps.items()}
        for row in table.rows:
            status = row.get("status")
            for column, kinds in roles.items():
                value = row.get(column)
                problem = is_date(value) and kinds and _state_problem(status, kinds, value,
                                                                      subject.clock)
                if problem:
                    yield subject.finding(table.name, row.get("id"), "state_date",
                                          f"{status}: {column} {value} {problem}")
            for stamp, target in stamps.items():
                value = row.get(stamp)
                if value is not None and status not in reach[stamp]:
                    yield subject.finding(table.name, row.get("id"), "state_date",
                                          f"{status}: {stamp} is set, but the row never "
                                          f"became {target}")
                elif value is None and status == target:
                    yield subject.finding(table.name, row.get("id"), "state_date",
                                          f"{status}: {stamp} is empty")

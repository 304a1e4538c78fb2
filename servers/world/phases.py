"""What an entity's states say about its dates: which side of the clock each date lies on.

A domain pack declares it (:class:`DatePhase`, :class:`Expiry`); where it does not, the names
tell: an ``expires_on`` of an active token lies ahead and one of an expired token behind. The
seeder reads these to draw dates that agree with states; the policy helpers here say which
states have passed a policy's check.
"""

from __future__ import annotations

import re

from .spec import DatePhase, Entity, Expiry, Policy

__all__ = ["date_phases", "origin_fields", "policy_states", "stamps", "downstream",
           "date_pairs", "past_only", "holding_states", "FREEING"]

_EXPIRY = re.compile(r"(expir|valid_until|valid_to|valid_thru|lapses)")
_EXPIRED_STATES = frozenset({"expired", "lapsed", "timed_out", "overdue"})
# Date fields that record the row's own origin: the record is created that day.
_ORIGIN = re.compile(r"^(received|requested|submitted|issued|opened|filed|placed|ordered|"
                     r"reported|registered|applied|logged|raised|enrolled|joined|listed|"
                     r"collected|created|started|signed_up|asked|posted)(_on|_at|_date)?$")


def stamps(entity: Entity) -> set[str]:
    return {t.stamp for t in entity.lifecycle.transitions if t.stamp} if entity.lifecycle else set()


def downstream(entity: Entity, starts: set[str]) -> set[str]:
    """The states reachable from ``starts`` by the entity's moves, ``starts`` included."""
    seen, todo = set(starts), list(starts)
    while todo:
        state = todo.pop()
        for t in entity.lifecycle.transitions if entity.lifecycle else ():
            if state in t.sources and t.target not in seen:
                seen.add(t.target)
                todo.append(t.target)
    return seen


# What a state says about the row's time line (a heuristic over the words archetypes use).
_NOT_YET = frozenset({"scheduled", "upcoming", "planned", "not_started", "announced", "booked",
                      "reserved", "confirmed", "pre_admitted", "tentative", "draft", "pending",
                      "requested", "queued", "on_sale"})
_UNDER_WAY = frozenset({"active", "open", "voting", "live", "running", "in_progress", "ongoing",
                        "started", "recruiting", "on_sale", "selling", "trading", "checked_in",
                        "admitted", "valid", "issued", "enabled", "current", "subscribed",
                        "trialing", "in_use", "effective", "snoozed", "in_transit", "boarding",
                        "checked_out_items", "on_loan", "borrowed", "departed", "underway"})
_OVER = frozenset({"closed", "ended", "completed", "finished", "expired", "lapsed", "passed",
                   "executed", "defeated", "checked_out", "discharged", "returned", "aired",
                   "flown", "done", "token_expired", "succeeded", "queued_done", "arrived",
                   "delivered", "resolved", "archived", "retired", "settled", "fulfilled"})
_HELD = frozenset({"completed", "finished", "done", "checked_out", "discharged", "aired",
                   "flown", "no_show", "attended", "held", "delivered", "arrived", "closed",
                   "ended", "graded", "sat"})
_OUT = frozenset({"published", "printed", "released", "aired", "broadcast", "posted", "sent",
                  "live", "shipped", "distributed"})
# Name words that give a date column its part in the row's life.
_START = frozenset({"start", "starts", "begin", "begins", "from", "opens", "kickoff", "departs",
                    "arrival", "started"})
_END = frozenset({"end", "ends", "until", "closes", "expires", "expiry", "expiration",
                  "departure", "returns", "due", "deadline", "lapses"})
_DAY = frozenset({"session", "sits", "performs", "route", "work", "slot", "scheduled", "event",
                  "show", "air", "street", "publish", "release", "launch", "exam", "sitting",
                  "match", "game", "tournament", "performance", "screening", "delivery"})
_PUBLISH = frozenset({"publish", "published", "release", "released", "street", "air", "aired",
                      "print", "printed", "launch", "launched", "issue"})
_NOT_LIFE = frozenset({"snooze", "embargo", "password", "license", "licence", "token", "birth"})
_SUFFIXES = frozenset({"on", "at", "date", "day", "time"})


def _words(name: str) -> list[str]:
    return [w for w in name.split("_") if w]


def _roles(column: str) -> set[str]:
    tokens = set(_words(column))
    stem = tokens - _SUFFIXES
    if tokens & _NOT_LIFE:
        return set()
    roles = set()
    if stem & _START or column == "check_in":
        roles.add("start")
    if stem & _END or column == "check_out" or _EXPIRY.search(column):
        roles.add("end")
    if stem & _DAY or column == "scheduled_for":
        roles.add("day")
    if tokens & _PUBLISH:
        roles.add("publish")
    return roles


def _inferred(entity: Entity) -> list[DatePhase]:
    """Phases the column and state names imply: a planned row starts later, a running one has
    started and not yet ended, a finished one has ended, a printed issue has its print date
    behind it, an expired token its expiry."""
    if not entity.lifecycle:
        return []
    states = set(entity.lifecycle.states)
    out = []
    for f in entity.fields:
        if f.kind != "date" or f.name in stamps(entity):
            continue
        roles = _roles(f.name)
        before, after = set(), set()
        if roles & {"start", "day", "publish"}:
            before |= states & _NOT_YET
        if "end" in roles:
            before |= states & (_NOT_YET | _UNDER_WAY)
            after |= states & (_OVER | _EXPIRED_STATES)
        if "start" in roles:
            after |= states & (_UNDER_WAY | _OVER)
        if "day" in roles:
            after |= states & _HELD
        if "publish" in roles:
            after |= states & _OUT
        if _EXPIRY.search(f.name):
            live = states - set(entity.lifecycle.frozen) - _EXPIRED_STATES
            before |= live
            after |= states & _EXPIRED_STATES
        before -= after
        if before or after:
            out.append(DatePhase(f.name, before=tuple(sorted(before)), after=tuple(sorted(after))))
    return out


def date_phases(entity: Entity) -> list[DatePhase]:
    """The entity's declared phases, its expiries as phases, and phases its names imply for the
    date fields neither covers."""
    declared = [c for c in entity.constraints if isinstance(c, DatePhase)]
    declared += [DatePhase(c.field, before=c.live_states, after=c.expired_states)
                 for c in entity.constraints if isinstance(c, Expiry)]
    covered = {p.field for p in declared}
    return declared + [p for p in _inferred(entity) if p.field not in covered]


def origin_fields(entity: Entity) -> list[str]:
    """Date fields that mark when the row itself came to be (received, requested, issued)."""
    return [f.name for f in entity.fields
            if f.kind == "date" and _ORIGIN.match(f.name) and f.name not in stamps(entity)]


def policy_states(entity: Entity, c: Policy) -> tuple[set[str], set[str]]:
    """(states whose rows passed the policy's check, states whose rows still wait for it)."""
    if not entity.lifecycle or not c.moves:
        states = set(entity.lifecycle.states) if entity.lifecycle else set()
        return states, set()
    moves = [t for t in entity.lifecycle.transitions if t.verb in c.moves]
    passed = downstream(entity, {t.target for t in moves})
    waiting = {s for t in moves for s in t.sources} - passed
    return passed, waiting


# (earlier, later) words: a column named with the first comes no later than its twin named
# with the second ("opened_on" / "resolved_on", "admitted_on" / "discharged_on").
_PAIRS = (("start", "end"), ("starts", "ends"), ("started", "ended"), ("started", "finished"),
          ("started", "completed"), ("from", "until"), ("from", "to"), ("opens", "closes"),
          ("opened", "closed"), ("opened", "resolved"), ("begin", "end"), ("first", "last"),
          ("in", "out"), ("departs", "arrives"), ("departs", "returns"),
          ("arrival", "departure"), ("issued", "expires"), ("admitted", "discharged"),
          ("shipped", "delivered"), ("collected", "received"), ("sent", "delivered"),
          ("ordered", "delivered"), ("submitted", "decided"), ("onset", "resolved"),
          ("requested", "settled"), ("received", "decided"), ("placed", "shipped"),
          ("placed", "delivered"), ("booked", "completed"), ("applied", "decided"))


def date_pairs(entity: Entity) -> list[tuple[str, str]]:
    """Date columns that must stay in order: declared orders and named twins."""
    from .spec import DateOrder, NoOverlap
    out = [(c.start, c.end) for c in entity.constraints if isinstance(c, DateOrder | NoOverlap)]
    dates = [f.name for f in entity.fields if f.kind == "date"]
    stems = {tuple(w for w in _words(d) if w not in _SUFFIXES): d for d in dates}
    for d in dates:
        stem = tuple(w for w in _words(d) if w not in _SUFFIXES)
        for early, late in _PAIRS:
            if early in stem:
                twin = stems.get(tuple(late if w == early else w for w in stem))
                if twin and twin != d and (d, twin) not in out:
                    out.append((d, twin))
    return out


_NOT_PAST = frozenset({"expected", "scheduled", "planned", "projected", "estimated", "intended",
                       "proposed", "needed", "required", "anticipated", "targeted", "extended"})
_FUTURE_WORDS = frozenset({"scheduled", "send", "due", "expires", "starts", "ends", "remind",
                           "notify", "run", "next", "until", "deliver"})
_IRREGULAR_PAST = frozenset({"sent", "paid", "sold", "spent", "built", "written", "taken",
                             "begun", "done", "seen", "held", "won", "read", "met", "born"})


def past_only(entity: Entity, column: str) -> bool:
    """Whether a date column records something done (``received_on``, ``resolved_on``), which
    cannot lie after the clock."""
    tokens = _words(column)
    if column in stamps(entity) or column == "date_of_birth":
        return True
    if tokens[-1:] == ["at"]:
        return not set(tokens) & (_NOT_PAST | _FUTURE_WORDS)
    if tokens[-1:] not in (["on"], ["seen"]) or len(tokens) < 2:
        return False
    head = tokens[0] if tokens[0] not in ("first", "last") else tokens[1]
    return head not in _NOT_PAST and (head.endswith("ed") or head in _IRREGULAR_PAST)


# States whose rows give their place back (a cancelled booking frees its seat).
FREEING = frozenset({"cancelled", "canceled", "withdrawn", "rejected", "declined", "expired",
                     "refunded", "voided", "void", "released", "lapsed", "revoked", "denied",
                     "abandoned", "failed", "removed", "deleted", "superseded", "waitlisted"})


def holding_states(entity: Entity, live: tuple[str, ...]) -> set[str]:
    """The states whose rows hold a place under a capacity: the live ones and every state they
    lead to that does not give the place back (a no-show still held a seat)."""
    return set(live) | {s for s in downstream(entity, set(live)) if s not in FREEING}

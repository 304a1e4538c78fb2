"""What an entity's states say about its dates: which side of the clock each date lies on.

A domain pack declares it (:class:`DatePhase`, :class:`Expiry`); where it does not, the names
tell: an ``expires_on`` of an active token lies ahead and one of an expired token behind. The
seeder reads these to draw dates that agree with states; the policy helpers here say which
states have passed a policy's check.
"""

from __future__ import annotations

import re

from .spec import DatePhase, Entity, Expiry, Policy

__all__ = ["date_phases", "origin_fields", "policy_states", "stamps", "downstream"]

_EXPIRY = re.compile(r"(expir|valid_until|valid_to|valid_thru|lapses)")
_EXPIRED_STATES = frozenset({"expired", "lapsed", "timed_out", "overdue"})
# Date fields that record the row's own origin: the record is created that day.
_ORIGIN = re.compile(r"^(received|requested|submitted|issued|opened|filed|placed|ordered|"
                     r"reported|registered|applied|logged|raised|enrolled|joined|listed|"
                     r"collected|created|started|signed_up)(_on|_at|_date)?$")


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


def _inferred(entity: Entity) -> list[DatePhase]:
    if not entity.lifecycle:
        return []
    states = entity.lifecycle.states
    expired = tuple(s for s in states if s in _EXPIRED_STATES)
    live = tuple(s for s in states if s not in expired and s not in entity.lifecycle.frozen)
    out = []
    for f in entity.fields:
        if f.kind == "date" and _EXPIRY.search(f.name) and f.name not in stamps(entity):
            out.append(DatePhase(f.name, before=live, after=expired))
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

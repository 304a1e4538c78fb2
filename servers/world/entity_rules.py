"""The business rules an entity's declaration implies, with their breakers, and the probes of
its tools. Rule ids are stable: ``<entity>-<kind>[-<detail>]``."""

from __future__ import annotations

from typing import Any

from agentworld.servers.manifest import Rule

from .builder import EnvBuilder, Probe
from .constraints import placeholders
from .describe import a_an, either
from .domain_rules import add_domain_rules
from .entity_probes import align, create_candidates, missing_id, plain_value, rows, stamps
from .spec import Capacity, DateOrder, Entity, MaxPerParent, NoOverlap, RefInState

__all__ = ["add_entity_rules", "add_entity_probes"]


def _words(name: str) -> str:
    return name.replace("_", " ")


def _A(name: str) -> str:
    """``An application``: a noun with its capitalised article, to open a sentence."""
    return a_an(name).capitalize()


def add_entity_rules(b: EnvBuilder, e: Entity, tables: dict[str, str]) -> None:
    create, update = f"create_{e.name}", f"update_{e.name}"
    has_update = update in b.tools
    for f in e.fields:
        if f.unique:
            tools = (create, update) if has_update and f.mutable else (create,)
            b.add_rule(Rule(f"{e.name}-unique-{f.name}",
                            f"No two {_words(e.plural)} share the same {_words(f.name)}.",
                            tools, "CONFLICT"), _breaker_unique(e, f.name, tables))
    refs = [f for f in e.fields if f.kind == "ref" and f.name not in stamps(e)]
    if refs and e.creatable:
        names = ", ".join(_words(f.ref) for f in refs)
        b.add_rule(Rule(f"{e.name}-refs-exist", f"{_A(e.name)} must refer to an existing "
                        f"{names}.", (create,), "NOT_FOUND"), _breaker_refs(e, tables))
    if e.lifecycle and e.lifecycle.transitions:
        moves = "; ".join(f"{_words(t.verb)} only from {either(t.sources)}"
                          for t in e.lifecycle.transitions)
        b.add_rule(Rule(f"{e.name}-lifecycle", f"{_A(e.name)} moves only along its "
                        f"lifecycle: {moves}.",
                        tuple(f"{t.verb}_{e.name}" for t in e.lifecycle.transitions),
                        "PRECONDITION_FAILED"), _breaker_lifecycle(e))
    if e.lifecycle and e.lifecycle.frozen and has_update:
        b.add_rule(Rule(f"{e.name}-frozen", f"{_A(e.name)} that is "
                        f"{either(e.lifecycle.frozen)} can no longer be edited.", (update,),
                        "PRECONDITION_FAILED"), _breaker_frozen(e))
    for c in e.constraints:
        _add_constraint_rule(b, e, c, tables)
    add_domain_rules(b, e, tables)


def _add_constraint_rule(b: EnvBuilder, e: Entity, c: Any, tables: dict[str, str]) -> None:
    create = f"create_{e.name}"
    if not e.creatable:
        return
    if isinstance(c, DateOrder):
        text = f"A {_words(e.name)}'s {_words(c.end)} must be after its {_words(c.start)}."
        b.add_rule(Rule(f"{e.name}-date-order", text, (create,), "VALIDATION_ERROR"),
                   lambda db: [(create, {**a, c.end: a[c.start]})
                               for a in create_candidates(db, e, tables)])
    elif isinstance(c, RefInState):
        ref = e.field(c.ref).ref
        text = (f"A new {_words(e.name)} can only be attached to {a_an(ref)} that is "
                f"{either(c.states)}.")
        b.add_rule(Rule(f"{e.name}-{c.ref}-state", text, (create,), "PRECONDITION_FAILED"),
                   _breaker_ref_state(e, c, tables))
    elif isinstance(c, NoOverlap):
        text = (f"Two {either(c.live_states)} {_words(e.plural)} for the same "
                f"{_words(c.resource)} cannot overlap in time.")
        b.add_rule(Rule(f"{e.name}-no-overlap", text, (create,), "CONFLICT"),
                   _breaker_overlap(e, c, tables))
    elif isinstance(c, Capacity):
        ref = e.field(c.ref).ref
        what = _words(c.amount) if c.amount else f"{either(c.live_states)} {_words(e.plural)}"
        text = f"The {what} of {a_an(ref)} never exceed its {_words(c.capacity_field)}."
        b.add_rule(Rule(f"{e.name}-capacity", text, (create,), "CONFLICT"),
                   _breaker_capacity(e, c, tables))
    elif isinstance(c, MaxPerParent):
        ref = e.field(c.ref).ref
        text = (f"{_A(ref)} has at most {c.limit} {either(c.live_states)} "
                f"{_words(e.plural)} at a time.")
        b.add_rule(Rule(f"{e.name}-limit-per-{c.ref}", text, (create,), "LIMIT_EXCEEDED"),
                   _breaker_max(e, c, tables))


def _breaker_unique(e: Entity, name: str, tables):
    def breaker(db):
        taken = [r[name] for r in rows(db, e.plural)]
        return [(f"create_{e.name}", {**a, name: v})
                for a, v in zip(create_candidates(db, e, tables), taken, strict=False)]
    return breaker


def _breaker_refs(e: Entity, tables):
    refs = [f for f in e.fields if f.kind == "ref" and f.name not in stamps(e)]

    def breaker(db):
        return [(f"create_{e.name}", {**a, f.name: f"{f.ref[:3]}_0000000000"})
                for a in create_candidates(db, e, tables)[:2] for f in refs]
    return breaker


def _breaker_lifecycle(e: Entity):
    def breaker(db):
        calls = []
        for t in e.lifecycle.transitions:
            for r in rows(db, e.plural, f"status NOT IN ({placeholders(t.sources)})", t.sources, 2):
                calls.append((f"{t.verb}_{e.name}", {"id": r["id"]}))
        return calls
    return breaker


def _update_change(e: Entity, k: int = 0) -> dict[str, Any]:
    """A harmless change for update_<entity>: a mutable field no constraint involves."""
    involved = {getattr(c, n, None) for c in e.constraints
                for n in ("start", "end", "resource", "amount", "capacity_field", "ref",
                          "field", "left", "right")}
    involved |= {f for c in e.constraints for f in getattr(c, "fields", ())}
    mutable = [f for f in e.fields if f.mutable and f.kind not in ("ref", "code")
               and not f.unique and not f.format and f.name not in involved]
    if not mutable:
        return {}
    f = sorted(mutable, key=lambda f: f.kind not in ("text", "enum", "name"))[0]
    return {f.name: plain_value(f, k + 1)}


def _breaker_frozen(e: Entity):
    def breaker(db):
        frozen = e.lifecycle.frozen
        change = _update_change(e)
        return [(f"update_{e.name}", {"id": r["id"], **change})
                for r in rows(db, e.plural, f"status IN ({placeholders(frozen)})", frozen)
                if change]
    return breaker


def _breaker_ref_state(e: Entity, c: RefInState, tables):
    table = tables[e.field(c.ref).ref]

    def breaker(db):
        bad = rows(db, table, f"status NOT IN ({placeholders(c.states)})", c.states)
        return [(f"create_{e.name}", align(db, e, {**a, c.ref: r["id"]}, c.ref, tables))
                for a, r in zip(create_candidates(db, e, tables), bad, strict=False)]
    return breaker


def _breaker_overlap(e: Entity, c: NoOverlap, tables):
    def breaker(db):
        live = rows(db, e.plural, f"status IN ({placeholders(c.live_states)})", c.live_states, 20)
        calls = []
        for a in create_candidates(db, e, tables)[:1]:
            for r in live:
                calls.append((f"create_{e.name}",
                              {**a, c.resource: r[c.resource], c.start: r[c.start],
                               c.end: r[c.end]}))
        return calls
    return breaker


def _allowed_parents(e: Entity, ref: str) -> tuple[str, tuple]:
    """SQL narrowing parents to those a RefInState on the same reference allows: a quota's
    breaker must hit the quota, not the state rule."""
    states = next((c.states for c in e.constraints
                   if isinstance(c, RefInState) and c.ref == ref), None)
    if not states:
        return "1 = 1", ()
    return f"p.status IN ({placeholders(states)})", tuple(states)


def _breaker_capacity(e: Entity, c: Capacity, tables):
    table = tables[e.field(c.ref).ref]

    def breaker(db):
        used = f"SUM({c.amount})" if c.amount else "COUNT(*)"
        allowed, allowed_params = _allowed_parents(e, c.ref)
        full = db.execute(
            f"SELECT p.id, p.{c.capacity_field} - (SELECT COALESCE({used}, 0) FROM {e.plural} x "
            f"WHERE x.{c.ref} = p.id AND x.status IN ({placeholders(c.live_states)})) AS room "
            f"FROM {table} p WHERE {allowed} ORDER BY room, p.id LIMIT 5",
            (*c.live_states, *allowed_params)).fetchall()
        calls = []
        top = e.field(c.amount).max if c.amount else None
        for a in create_candidates(db, e, tables)[:1]:
            for parent_id, room in full:
                args = align(db, e, {**a, c.ref: parent_id}, c.ref, tables)
                if c.amount:
                    args[c.amount] = max(int(room) + 1, 1)
                    if top is not None and args[c.amount] > top:
                        continue  # the schema would refuse it before the capacity rule
                elif room > 0:
                    continue
                calls.append((f"create_{e.name}", args))
        return calls
    return breaker


def _breaker_max(e: Entity, c: MaxPerParent, tables):
    table = tables[e.field(c.ref).ref]

    def breaker(db):
        allowed, allowed_params = _allowed_parents(e, c.ref)
        maxed = db.execute(
            f"SELECT p.id FROM {table} p WHERE (SELECT COUNT(*) FROM {e.plural} x WHERE "
            f"x.{c.ref} = p.id AND x.status IN ({placeholders(c.live_states)})) >= ? "
            f"AND {allowed} ORDER BY p.id LIMIT 5",
            (*c.live_states, c.limit, *allowed_params)).fetchall()
        return [(f"create_{e.name}", align(db, e, {**a, c.ref: parent_id}, c.ref, tables))
                for a in create_candidates(db, e, tables)[:1] for (parent_id,) in maxed]
    return breaker


def add_entity_probes(b: EnvBuilder, e: Entity, tables: dict[str, str]) -> None:
    plural = e.plural
    b.probes[f"search_{plural}"] = Probe(lambda db: [{}], lambda db: [{"cursor": "page-two"}],
                                         "VALIDATION_ERROR")
    b.probes[f"get_{e.name}"] = Probe(lambda db: [{"id": r["id"]} for r in rows(db, plural)],
                                      lambda db: [{"id": missing_id(e)}], "NOT_FOUND")
    if e.creatable:
        refs = [f for f in e.fields if f.kind == "ref" and f.name not in stamps(e)]
        if refs:
            failure = _breaker_refs(e, tables)
            b.probes[f"create_{e.name}"] = Probe(
                lambda db: create_candidates(db, e, tables),
                lambda db: [args for _, args in failure(db)], "NOT_FOUND", changes=plural)
        else:
            b.probes[f"create_{e.name}"] = Probe(
                lambda db: create_candidates(db, e, tables), lambda db: [{}],
                "VALIDATION_ERROR", changes=plural)
    if f"update_{e.name}" in b.tools:
        frozen = e.lifecycle.frozen if e.lifecycle else ()

        def update_ok(db):
            where = f"status NOT IN ({placeholders(frozen)})" if frozen else "1 = 1"
            change = _update_change(e)
            return [{"id": r["id"], **change} for r in rows(db, plural, where, frozen) if change]

        b.probes[f"update_{e.name}"] = Probe(
            update_ok, lambda db: [{"id": missing_id(e), **_update_change(e)}], "NOT_FOUND",
            changes=plural)
    for t in e.lifecycle.transitions if e.lifecycle else ():
        b.probes[f"{t.verb}_{e.name}"] = Probe(
            lambda db, t=t: [{"id": r["id"]} for r in rows(
                db, plural, f"status IN ({placeholders(t.sources)})", t.sources)],
            lambda db, t=t: [{"id": r["id"]} for r in rows(
                db, plural, f"status NOT IN ({placeholders(t.sources)})", t.sources)]
            or [{"id": missing_id(e)}],
            "PRECONDITION_FAILED", changes=plural)

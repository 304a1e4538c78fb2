"""Domain rules beyond lifecycles, declared in the domain packs: formats, uniqueness over several
columns, memberships, distinct roles, policy thresholds and caps, expiries.

Each becomes a line in the manifest's rules and a breaker: calls drawn from the seeded data that
the rule must refuse, which filter 2 replays on fresh sessions.
"""

from __future__ import annotations

from agentworld.servers.manifest import Rule

from .builder import EnvBuilder
from .codes import FORMAT_HELP
from .constraints import placeholders
from .describe import a_an, either, words
from .entity_probes import column_of, create_candidates, rows
from .entity_schema import EPOCH
from .phases import policy_states
from .spec import Distinct, Entity, Expiry, Policy, RefInState, SameGroup, UniqueTogether

__all__ = ["add_domain_rules", "BAD_VALUES"]

# A value each format refuses, as an agent might type it.
BAD_VALUES = {"semver": "not-a-version", "email": "not-an-email", "currency": "EURO",
              "iban": "DE00 1234", "ean13": "4006381333932", "upc": "036000291453",
              "isrc": "US-XXX-1", "isbn13": "9780306406158", "loinc": "LN-Z53DMZ",
              "slug": "Not A Slug!"}


def add_domain_rules(b: EnvBuilder, e: Entity, tables: dict[str, str]) -> None:
    create = f"create_{e.name}"
    if not e.creatable:
        return
    for f in e.fields:
        fmt = "email" if f.kind == "email" else f.format
        if fmt in BAD_VALUES and f.kind != "code":
            what = FORMAT_HELP[fmt][0]
            b.add_rule(Rule(f"{e.name}-format-{f.name}", f"{a_an(e.name).capitalize()}'s "
                            f"{words(f.name)} must be {what}.", (create,), "VALIDATION_ERROR"),
                       _breaker_format(e, f.name, fmt, tables))
    for c in e.constraints:
        if isinstance(c, UniqueTogether):
            b.add_rule(Rule(f"{e.name}-unique-{'-'.join(c.fields)}",
                            f"No two {words(e.plural)} share the same {either(c.fields)}"
                            .replace(" or ", " and "), (create,), "CONFLICT"),
                       _breaker_together(e, c, tables))
        elif isinstance(c, SameGroup):
            _same_group_rule(b, e, c, tables)
        elif isinstance(c, Distinct):
            b.add_rule(Rule(f"{e.name}-distinct-{c.left}-{c.right}",
                            f"{a_an(e.name).capitalize()}'s {_role(c.left)} and "
                            f"{_role(c.right)} are different people or rows.", (create,),
                            "VALIDATION_ERROR"),
                       lambda db, c=c: [(create, {**a, c.right: a[c.left]})
                                        for a in create_candidates(db, e, tables)
                                        if c.left in a])
        elif isinstance(c, Policy):
            _policy_rule(b, e, c, tables)
        elif isinstance(c, Expiry) and c.moves:
            tools = tuple(f"{m}_{e.name}" for m in c.moves if f"{m}_{e.name}" in b.tools)
            if tools:
                b.add_rule(Rule(f"{e.name}-expiry-{c.field}",
                                f"{a_an(e.name).capitalize()} cannot be "
                                f"{either([_past(m) for m in c.moves])} once the date in its "
                                f"{c.field} field has passed.",
                                tools, "PRECONDITION_FAILED"), _breaker_expiry(e, c, tools))


def _role(column: str) -> str:
    return words(column.split(".")[0].removesuffix("_id"))


def _breaker_format(e: Entity, name: str, fmt: str, tables):
    def breaker(db):
        return [(f"create_{e.name}", {**a, name: BAD_VALUES[fmt]})
                for a in create_candidates(db, e, tables)[:2]]
    return breaker


def _breaker_together(e: Entity, c: UniqueTogether, tables):
    # Existing rows whose references a new row could still take (a vote on a proposal that is
    # still open), so the clash is what refuses the copy.
    where, params = ["1 = 1"], []
    for r in e.constraints:
        if isinstance(r, RefInState) and r.ref in c.fields:
            where.append(f"{r.ref} IN (SELECT id FROM {tables[e.field(r.ref).ref]} WHERE status "
                         f"IN ({placeholders(r.states)}))")
            params += list(r.states)

    def breaker(db):
        taken = rows(db, e.plural, " AND ".join(where), tuple(params), limit=20)
        calls = []
        for a in create_candidates(db, e, tables)[:1]:
            for r in taken:
                calls.append((f"create_{e.name}", {**a, **{f: r[f] for f in c.fields}}))
        return calls
    return breaker


def _same_group_rule(b: EnvBuilder, e: Entity, c: SameGroup, tables) -> None:
    group = c.noun or words(c.right.split(".")[-1].removesuffix("_id"))
    text = c.text or (f"{a_an(e.name).capitalize()}'s {_role(c.left)} must belong to the same "
                      f"{group} as its {_role(c.right)}.")
    left, _, column = c.left.partition(".")
    table = tables[e.field(left).ref]

    def breaker(db):
        calls = []
        for a in create_candidates(db, e, tables)[:2]:
            own = column_of(db, e, a, c.left, tables)
            if column and own is not None:
                for (other,) in db.execute(f"SELECT id FROM {table} WHERE {column} <> ? "
                                           f"ORDER BY id LIMIT 3", (own,)):
                    calls.append((f"create_{e.name}", {**a, left: other}))
        return calls
    b.add_rule(Rule(f"{e.name}-same-{words(group).replace(' ', '-').lower()}", text,
                    (f"create_{e.name}",), "PRECONDITION_FAILED"), breaker)


def _policy_rule(b: EnvBuilder, e: Entity, c: Policy, tables) -> None:
    ref = words(e.field(c.ref).ref)
    bound = "at most" if c.op == "<=" else "at least"
    code = "LIMIT_EXCEEDED" if c.op == "<=" else "PRECONDITION_FAILED"
    moves = [m for m in c.moves if f"{m}_{e.name}" in b.tools]
    when = f" to be {either([_past(m) for m in moves])}" if moves and not c.on_create else ""
    text = (f"{a_an(e.name).capitalize()}'s {words(c.field)} must be {bound} the "
            f"{words(c.limit)} of its {ref}{when}.")
    tools = tuple(f"{m}_{e.name}" for m in moves)
    if c.on_create:
        tools = (f"create_{e.name}", *tools)
    b.add_rule(Rule(f"{e.name}-policy-{c.field}", text, tools, code),
               _breaker_policy(e, c, tables, moves))


def _past(verb: str) -> str:
    word = words(verb).split()[0]
    rest = words(verb)[len(word):]
    if word.endswith("e"):
        return word + "d" + rest
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ied" + rest
    return word + "ed" + rest


def _breaker_policy(e: Entity, c: Policy, tables, moves: list[str]):
    f = e.field(c.field)
    parent = tables[e.field(c.ref).ref]

    def breaker(db):
        calls = []
        if c.on_create:
            for a in create_candidates(db, e, tables)[:3]:
                found = db.execute(f"SELECT {c.limit} FROM {parent} WHERE id = ?",
                                   (a.get(c.ref),)).fetchone()
                if not found or found[0] is None:
                    continue
                bad = found[0] + 1 if c.op == "<=" else found[0] - 1
                if (f.min is None or bad >= f.min) and (f.max is None or bad <= f.max):
                    calls.append((f"create_{e.name}", {**a, c.field: int(bad)}))
        _, waiting = policy_states(e, c)
        cmp = ">" if c.op == "<=" else "<"
        # Rows that keep every other policy, so the refusal is this policy's.
        others = " ".join(
            f"AND x.{o.field} {o.op} (SELECT {o.limit} FROM {tables[e.field(o.ref).ref]} "
            f"WHERE id = x.{o.ref})" for o in e.constraints if isinstance(o, Policy) and o != c)
        for m in moves:
            t = next(t for t in e.lifecycle.transitions if t.verb == m)
            sources = tuple(s for s in t.sources if s in waiting) or t.sources
            for (ident,) in db.execute(
                    f"SELECT x.id FROM {e.plural} x JOIN {parent} p ON p.id = x.{c.ref} "
                    f"WHERE x.status IN ({placeholders(sources)}) AND x.{c.field} {cmp} "
                    f"p.{c.limit} {others} ORDER BY x.id LIMIT 3", sources):
                calls.append((f"{m}_{e.name}", {"id": ident}))
        return calls
    return breaker


def _breaker_expiry(e: Entity, c: Expiry, tools: tuple[str, ...]):
    def breaker(db):
        calls = []
        for m in c.moves:
            t = next(t for t in e.lifecycle.transitions if t.verb == m)
            for (ident,) in db.execute(
                    f"SELECT id FROM {e.plural} WHERE status IN ({placeholders(t.sources)}) "
                    f"AND {c.field} < ? ORDER BY id LIMIT 3", (*t.sources, EPOCH.isoformat())):
                calls.append((f"{m}_{e.name}", {"id": ident}))
        return calls
    return breaker

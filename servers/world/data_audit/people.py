"""People in roles: one row's roles are filled by different people (the patient is not the
ordering clinician, the sender not the recipient), and a person who holds one role in the world
(a clinician) does not turn up in another (a patient), unless the archetype declares the pair in
``Archetype.same_person``.

A role is a column naming a person: a ``name`` field, or a reference to a table of people (one
whose label is a name). Two roles hold the same person when they hold the same name.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from .model import Finding, Subject, Table, words

__all__ = ["same_person", "person_two_roles", "people_tables"]


def people_tables(subject: Subject) -> dict[str, str]:
    """Table -> its name column, for tables whose rows are people."""
    out = {}
    for table in subject.tables.values():
        entity = table.entity
        if entity is None:
            continue
        label = next((f for f in entity.fields if f.name == entity.label), None)
        if label is not None and label.kind == "name":
            out[table.name] = label.name
        elif subject.archetype and entity.name == subject.archetype.people:
            name = next((f.name for f in entity.fields if f.kind == "name"), "")
            if name:
                out[table.name] = name
    return out


def _allowed(subject: Subject) -> set[frozenset[str]]:
    """Declared role pairs as {"table.column", "table.column"} sets."""
    if subject.archetype is None:
        return set()
    plural = {e.name: e.plural for e in subject.archetype.entities}

    def norm(role: str) -> str:
        owner, _, column = role.partition(".")
        return f"{plural.get(owner, owner)}.{column}"

    return {frozenset((norm(a), norm(b)))
            for a, b in subject.archetype.same_person}


def _roles(subject: Subject, table: Table, people: dict[str, str]) -> list[str]:
    """The columns of a table that name a person."""
    out = [f.name for f in table.fields("name")]
    for col in table.columns.values():
        if col.ref in people and col.ref != table.name:
            out.append(col.name)
    return out


def _person(subject: Subject, table: Table, column: str, row: dict[str, Any],
            people: dict[str, str]) -> str | None:
    value = row.get(column)
    ref = table.columns[column].ref
    if value is None or not ref:
        return value
    target = subject.tables[ref].by_id.get(value)
    return target.get(people[ref]) if target else None


def same_person(subject: Subject) -> Iterator[Finding]:
    """Two roles of one row filled by the same person."""
    people, allowed = people_tables(subject), _allowed(subject)
    for table in subject.tables.values():
        roles = _roles(subject, table, people)
        if table.name in people:
            roles.append(people[table.name])
            roles = list(dict.fromkeys(roles))
        if len(roles) < 2:
            continue
        for row in table.rows:
            who = {r: _person(subject, table, r, row, people) for r in roles}
            for i, a in enumerate(roles):
                for b in roles[i + 1:]:
                    pair = frozenset((f"{table.name}.{a}", f"{table.name}.{b}"))
                    if who[a] and who[a] == who[b] and pair not in allowed:
                        yield subject.finding(table.name, row.get("id"), "same_person",
                                              f"{who[a]} is both {a} and {b}")


def _same_role(a: str, b: str) -> bool:
    """Whether two roles are one role under two names: a copy of a person's name kept on
    another table (``patient_name`` next to the ``patients`` table)."""
    (ta, ca), (tb, cb) = a.split("."), b.split(".")
    # The same column name on two tables is one role (a repository's owner on its commits
    # and on its pull requests).
    return ca == cb or tb.startswith(words(ca)[0]) or ta.startswith(words(cb)[0])


def person_two_roles(subject: Subject) -> Iterator[Finding]:
    """A person named in one role (providers.full_name) who also holds another
    (patients.full_name): the seeded world reuses people across roles."""
    allowed = _allowed(subject)
    holders: dict[str, set[str]] = defaultdict(set)
    for table in subject.tables.values():
        for f in table.fields("name"):
            for row in table.rows:
                if row.get(f.name):
                    holders[row[f.name]].add(f"{table.name}.{f.name}")
    for table in subject.tables.values():
        for f in table.fields("name"):
            role = f"{table.name}.{f.name}"
            for row in table.rows:
                others = sorted(r for r in holders.get(row.get(f.name), ()) if r != role
                                and frozenset((r, role)) not in allowed
                                and not _same_role(role, r))
                if others:
                    yield subject.finding(table.name, row.get("id"), "person_two_roles",
                                          f"{row[f.name]} ({f.name}) is also {others[0]}")

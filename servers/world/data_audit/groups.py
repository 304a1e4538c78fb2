"""Membership: a row that joins things of one group joins them within it. A vote's voter belongs
to the DAO of the proposal voted on; a test result's run and case belong to one project.

Two kinds of pairs are compared:
- the paths an entity declares with a ``SameGroup`` constraint (``member_id.dao_id`` and
  ``proposal_id.dao_id``), whatever they lead to;
- undeclared, two rows a row refers to, of two different tables, that both refer to one group
  table. Groups that are people are left out (a review's author need not be the release's
  artist), and so is a row's own reference against its parent's (an incident may be handed to
  another support group than its configuration item's): those are not memberships.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .model import Finding, Subject, Table
from .people import people_tables

__all__ = ["membership"]


def _resolve(subject: Subject, table: Table, row: dict[str, Any], path: str) -> Any:
    """The value at ``a.b``: column ``b`` of the row that column ``a`` refers to."""
    head, _, rest = path.partition(".")
    if not rest:
        return row.get(head)
    parent = next((p for column, _, p in subject.parents(table, row) if column == head), None)
    return parent.get(rest) if parent is not None else None


def _declared(subject: Subject, table: Table, row: dict[str, Any]) -> str:
    for c in table.entity.constraints if table.entity else ():
        if type(c).__name__ != "SameGroup":
            continue
        left, right = (_resolve(subject, table, row, p) for p in (c.left, c.right))
        if left is not None and right is not None and left != right:
            return f"{c.left} is {left} but {c.right} is {right}"
    return ""


def _undeclared(subject: Subject, table: Table, row: dict[str, Any], skip: set[str]) -> str:
    reached: list[tuple[str, str, Any, str]] = []   # (path, group table, group id, via table)
    for column, parent_table, parent in subject.parents(table, row):
        for col in parent_table.columns.values():
            if col.ref and col.ref not in skip and col.ref != table.name \
                    and parent.get(col.name) is not None:
                reached.append((f"{column}.{col.name}", col.ref, parent[col.name],
                                parent_table.name))
    for i, (path_a, group_a, id_a, via_a) in enumerate(reached):
        for path_b, group_b, id_b, via_b in reached[i + 1:]:
            if group_a == group_b and via_a != via_b and id_a != id_b:
                return f"{path_a} is {id_a} but {path_b} is {id_b} (both {group_a})"
    return ""


def membership(subject: Subject) -> Iterator[Finding]:
    """A row whose references lead to two different groups where they must share one."""
    skip = set(people_tables(subject))
    if subject.archetype and subject.archetype.people:
        people = subject.entity_table(subject.archetype.people)
        skip |= {people.name} if people else set()
    for table in subject.tables.values():
        for row in table.rows:
            problem = _declared(subject, table, row) or _undeclared(subject, table, row, skip)
            if problem:
                yield subject.finding(table.name, row.get("id"), "membership", problem)

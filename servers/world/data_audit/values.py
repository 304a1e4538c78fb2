"""Values a domain expert would believe: ids that say which table they belong to, numbers within
the archetype's declared plausible ranges, parents holding no more children than they have room
for, amounts no larger than what they return, and labels that are not padded to be unique."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator

from ..spec import Capacity
from .dates import date_roles
from .model import Finding, Subject

__all__ = ["id_prefix", "out_of_range", "over_capacity", "padded_label"]

_PADDED = re.compile(r"^(.*\S) (\d{1,3})$")
# States in which a child of a one-off event used its place, whatever the event's rules count
# as live (a no-show still held a seat at the sitting).
_OCCUPIED = frozenset({"no_show", "attended", "absent", "completed", "checked_in", "checked_out",
                       "delivered", "boarded", "flown", "sat", "graded", "seated"})


def _prefix(ident: str) -> str:
    return ident.rsplit("_", 1)[0] if "_" in ident else ""


def id_prefix(subject: Subject) -> Iterator[Finding]:
    """Two tables whose row ids share a prefix (``pac_`` for packages and package versions)."""
    owners: dict[str, list[str]] = defaultdict(list)
    first: dict[str, str] = {}
    for table in subject.tables.values():
        prefixes = {_prefix(str(r["id"])) for r in table.rows if r.get("id") is not None}
        for prefix in prefixes - {""}:
            owners[prefix].append(table.name)
            first.setdefault(table.name, str(table.rows[0]["id"]))
    for prefix, tables in sorted(owners.items()):
        for name in tables[1:]:
            yield subject.finding(name, first[name], "id_prefix",
                                  f"ids start with {prefix}_, as do those of {tables[0]}")


def _amount_columns(subject: Subject, table) -> list[str]:
    declared = {f.name for f in table.fields("money")}
    generic = {c for c in table.columns if c == "amount" or c.startswith("amount_")}
    return sorted(declared | generic)


def out_of_range(subject: Subject) -> Iterator[Finding]:
    """A number outside its field's declared [min, max]; an amount that is not positive, or
    larger than the amount of the row it refers to (a refund larger than its payment)."""
    for table in subject.tables.values():
        bounded = [f for f in table.fields("int", "float", "money")
                   if f.min is not None or f.max is not None]
        amounts = _amount_columns(subject, table)
        for row in table.rows:
            for f in bounded:
                value = row.get(f.name)
                if not isinstance(value, int | float):
                    continue
                if (f.min is not None and value < f.min) or (f.max is not None and value > f.max):
                    yield subject.finding(table.name, row.get("id"), "out_of_range",
                                          f"{f.name} {value} is outside [{f.min}, {f.max}]")
            for column in amounts:
                value = row.get(column)
                if isinstance(value, int | float) and value < 0:
                    yield subject.finding(table.name, row.get("id"), "out_of_range",
                                          f"{column} {value} is negative")
            if isinstance(row.get("amount"), int | float):
                for ref, parent_table, parent in subject.parents(table, row):
                    if "amount" in parent_table.columns and isinstance(parent.get("amount"), int):
                        if row["amount"] > parent["amount"] and _returns(table.name):
                            yield subject.finding(
                                table.name, row.get("id"), "out_of_range",
                                f"amount {row['amount']} exceeds the {ref} {parent['id']}'s "
                                f"amount {parent['amount']}")


def _returns(table: str) -> bool:
    """Tables whose amounts give back part of another's (refunds, chargebacks, credits)."""
    return any(w in table for w in ("refund", "chargeback", "credit", "reversal", "return"))


def _dated(table) -> bool:
    """Whether a table's rows are one-off events (a sitting, a trip) rather than resources used
    over and over (a robot's sessions): an event's past children still held their places."""
    return any(date_roles(c) & {"start", "day"} for c in table.date_columns())


def over_capacity(subject: Subject) -> Iterator[Finding]:
    """A parent with more children holding a place than its capacity field allows: children in
    the constraint's live states, and for a one-off event also those that used their place (a
    no-show still held its seat)."""
    for table in subject.tables.values():
        for c in table.entity.constraints if table.entity else ():
            if not isinstance(c, Capacity):
                continue
            parent_table = subject.tables.get(table.columns[c.ref].ref)
            if parent_table is None:
                continue
            holding = set(c.live_states) | (_OCCUPIED if _dated(parent_table) else set())
            used: dict[str, float] = defaultdict(float)
            for row in table.rows:
                if row.get("status") in holding:
                    used[row.get(c.ref)] += (row.get(c.amount) or 0) if c.amount else 1
            for parent_id, count in sorted(used.items(), key=lambda kv: str(kv[0])):
                parent = parent_table.by_id.get(parent_id)
                capacity = parent.get(c.capacity_field) if parent else None
                if isinstance(capacity, int | float) and count > capacity:
                    held = f"{table.name}' {c.amount}" if c.amount else table.name
                    yield subject.finding(parent_table.name, parent_id, "over_capacity",
                                          f"{count:g} places are held ({held}), but "
                                          f"{c.capacity_field} is {capacity:g}")


def padded_label(subject: Subject) -> Iterator[Finding]:
    """A text value made unique by a number suffix (" 2", " 3") or a placeholder label such as
    "Booking 17" (the entity's name and a row number)."""
    for table in subject.tables.values():
        for f in table.fields("text"):
            values = {r.get(f.name) for r in table.rows}
            vocab = set(f.vocab)
            placeholder = table.entity.name.replace("_", " ").title() if table.entity else ""
            for row in table.rows:
                value = row.get(f.name)
                match = _PADDED.match(value) if isinstance(value, str) else None
                if match is None:
                    continue
                base = match.group(1)
                if base in vocab or base in values:
                    yield subject.finding(table.name, row.get("id"), "padded_label",
                                          f"{f.name} {value!r} is {base!r} padded to be unique")
                elif base == placeholder and not vocab:
                    yield subject.finding(table.name, row.get("id"), "padded_label",
                                          f"{f.name} {value!r} is a placeholder, not a label")

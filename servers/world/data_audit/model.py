"""What the data audit looks at: an environment's tables and rows, read back from its template
database, with what the archetype declares about each column, the environment's clock and its
tools. Checks receive one :class:`Subject` and return :class:`Finding` records."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from ..spec import Archetype, Entity, Field

__all__ = ["Finding", "Column", "Table", "Subject", "ToolText", "subject_from_db", "is_date",
           "day", "words"]

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?Z?)?$")


def is_date(value: Any) -> bool:
    return isinstance(value, str) and bool(_DATE.match(value))


def day(value: str) -> str:
    """The calendar day of a date or an ISO timestamp (both sort as text)."""
    return value[:10]


def words(name: str) -> list[str]:
    return [w for w in name.lower().split("_") if w]


@dataclass(frozen=True)
class Finding:
    """One thing a domain expert would object to: where it is and which rule it breaks."""

    env_id: str
    table: str
    row: str
    rule: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"env_id": self.env_id, "table": self.table, "row": self.row, "rule": self.rule,
                "message": self.message}


@dataclass(frozen=True)
class Column:
    name: str
    ref: str = ""                     # the table a foreign key refers to
    field: Field | None = None        # the archetype's declaration, for an entity's own column


@dataclass
class Table:
    name: str
    columns: dict[str, Column]
    rows: list[dict[str, Any]]
    entity: Entity | None = None

    def __post_init__(self) -> None:
        self.by_id = {r["id"]: r for r in self.rows if "id" in r}

    def fields(self, *kinds: str) -> list[Field]:
        """The archetype's fields of this table (all, or of the given kinds)."""
        if self.entity is None:
            return []
        return [f for f in self.entity.fields if not kinds or f.kind in kinds]

    def date_columns(self) -> list[str]:
        """Columns holding dates or timestamps: declared as dates, or every value looks like one."""
        out = []
        for name in self.columns:
            col = self.columns[name]
            if col.field is not None and col.field.kind != "date":
                continue
            values = [r[name] for r in self.rows if r.get(name) is not None]
            if (col.field is not None and col.field.kind == "date") or (
                    values and all(is_date(v) for v in values)):
                out.append(name)
        return out


@dataclass(frozen=True)
class ToolText:
    """The words a tool shows an agent: its description and its arguments' descriptions."""

    name: str
    description: str
    arguments: dict[str, str | None]


@dataclass
class Subject:
    env_id: str
    clock: str                        # the environment's epoch, YYYY-MM-DDTHH:MM:SSZ
    tables: dict[str, Table]
    archetype: Archetype | None = None
    tools: list[ToolText] = field(default_factory=list)

    def finding(self, table: str, row: Any, rule: str, message: str) -> Finding:
        return Finding(self.env_id, table, str(row), rule, message)

    def entity_table(self, entity_name: str) -> Table | None:
        return next((t for t in self.tables.values()
                     if t.entity is not None and t.entity.name == entity_name), None)

    def parents(self, table: Table, row: dict[str, Any]) -> list[tuple[str, Table, dict]]:
        """The rows this row refers to: (column, their table, their row), by foreign key or by
        a code another table issues (a result's ``loinc_code`` names a row of ``lab_tests``)."""
        out = []
        for col in table.columns.values():
            value = row.get(col.name)
            if value is None:
                continue
            if col.ref and col.ref in self.tables:
                parent = self.tables[col.ref].by_id.get(value)
            else:
                issuer = self._issuers().get(col.name)
                parent = issuer[1].get(value) if issuer and issuer[0] != table.name else None
            if parent is not None:
                target = col.ref or self._issuers()[col.name][0]
                out.append((col.name, self.tables[target], parent))
        return out

    def _issuers(self) -> dict[str, tuple[str, dict[Any, dict]]]:
        """Code column name -> (the one table that issues it, its rows by code): a column of
        kind code, or a unique one, that no other table declares."""
        if not hasattr(self, "_codes"):
            found: dict[str, list[Table]] = {}
            for t in self.tables.values():
                for f in t.fields():
                    if f.kind == "code" or (f.unique and f.kind not in ("name", "email")):
                        found.setdefault(f.name, []).append(t)
            self._codes = {name: (ts[0].name, {r[name]: r for r in ts[0].rows})
                           for name, ts in found.items() if len(ts) == 1}
        return self._codes


def _entities_by_table(archetype: Archetype | None) -> dict[str, Entity]:
    return {e.plural: e for e in archetype.entities} if archetype else {}


def subject_from_db(env_id: str, conn: sqlite3.Connection, *, clock: str,
                    archetype: Archetype | None = None,
                    tools: list[ToolText] | None = None) -> Subject:
    """Read every user table of ``conn`` (its columns, foreign keys and rows) into a Subject."""
    entities = _entities_by_table(archetype)
    names = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name")]
    # The archetype's tables first, in its order (referred entities first), then the features'.
    order = list(entities)
    names.sort(key=lambda n: (order.index(n) if n in order else len(order), n))
    tables = {}
    for name in names:
        refs = {r[3]: r[2] for r in conn.execute(f'PRAGMA foreign_key_list("{name}")')}
        entity = entities.get(name)
        declared = {f.name: f for f in entity.fields} if entity else {}
        columns = {r[1]: Column(r[1], refs.get(r[1], ""), declared.get(r[1]))
                   for r in conn.execute(f'PRAGMA table_info("{name}")')}
        cursor = conn.execute(f'SELECT * FROM "{name}"')
        keys = [d[0] for d in cursor.description]
        rows = [dict(zip(keys, tuple(r), strict=True)) for r in cursor]
        tables[name] = Table(name, columns, rows, entity)
    return Subject(env_id, clock, tables, archetype, list(tools or ()))

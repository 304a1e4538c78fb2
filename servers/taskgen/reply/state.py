"""What the claim reader holds a reply against: the episode's databases, its calls, what
changed, and the shapes of the service's own codes and states, read from the template once.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from typing import Any

from agentworld.servers.tasks import Step
from agentworld.servers.words import words

from ..tables import snapshot, table_digest
from ..values import leaves

__all__ = ["EpisodeState", "code_shapes", "state_tables", "named_rows", "in_database",
           "exists", "columns", "tables", "is_state_column", "labels", "named_keys",
           "linking_rows", "mentions"]

_READ_VERBS = frozenset({"get", "list", "search", "find", "read", "fetch", "query", "show",
                         "describe", "count", "lookup", "view", "browse", "retrieve", "check",
                         "inspect", "preview", "download", "export", "whoami", "me"})
_LABEL_COLUMNS = ("name", "title", "full_name", "display_name", "login", "subject", "label",
                  "flight_number", "email", "code", "pnr", "slug", "username", "handle")
_STATE_COLUMNS = ("status", "state", "role", "permission", "access", "access_level", "level",
                  "visibility", "stage", "phase", "priority", "severity")
_CODE_COLUMNS = ("code", "pnr", "reference", "confirmation", "confirmation_code", "locator",
                 "record_locator", "ticket_number", "invoice_number", "number", "sku",
                 "tracking_number", "order_number", "booking_reference", "ref")
def tables(db: sqlite3.Connection) -> list[str]:
    return [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]


def columns(db: sqlite3.Connection, table: str) -> list[tuple[str, str, bool]]:
    """(name, declared type, part of the primary key) of each column."""
    return [(r[1], (r[2] or "").upper(), bool(r[5]))
            for r in db.execute(f'PRAGMA table_info("{table}")')]


def _shape(values: list[str]) -> str | None:
    """A pattern that the column's codes share, strict enough that plain words and numbers do
    not fit it: a common prefix (``pax_``, ``MW``) or letters and digits mixed in every value."""
    values = [v for v in values if isinstance(v, str) and 3 <= len(v) <= 40]
    if len(values) < 3:
        return None
    prefix = _common_prefix(values)
    cut = max(prefix.rfind("_"), prefix.rfind("-")) + 1
    prefix = prefix[:cut] if cut else re.match(r"[A-Za-z]*", prefix).group(0)
    rests = [v[len(prefix):] for v in values]
    if any(not re.fullmatch(r"[A-Za-z0-9]+", r) for r in rests):
        return None
    lo, hi = min(map(len, rests)), max(map(len, rests))
    upper = all(r == r.upper() for r in rests)
    lower = all(r == r.lower() for r in rests)
    chars = "A-Z0-9" if upper else "a-z0-9" if lower else "A-Za-z0-9"
    # Codes such as record locators mix letters and digits; one made only of letters cannot be
    # told from a word, so only the mixed ones are read.
    share = sum(1 for r in rests if re.search(r"\d", r) and re.search(r"[A-Za-z]", r))
    mixed = share >= 0.8 * len(rests)
    if len(prefix) < 2 and not (mixed and lo >= 5 and (upper or lower)):
        return None
    body = f"[{chars}]{{{lo},{hi}}}"
    if mixed:
        body = f"(?=[{chars}]*\\d)(?=[{chars}]*[A-Za-z]){body}"
    return rf"(?<![\w-]){re.escape(prefix)}{body}(?![\w-])"


def _common_prefix(values: list[str]) -> str:
    first, last = min(values), max(values)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    return first[:n]


def _shapes_of(db: sqlite3.Connection) -> tuple:
    """(table, column, pattern) for every key or code column whose values share a shape."""
    out = []
    for table in tables(db):
        cols = columns(db, table)
        keys = [c for c in cols if c[2]]
        for name, _declared, is_key in cols:
            single_key = is_key and len(keys) == 1
            if not (single_key or name in _CODE_COLUMNS or name.endswith("_code")):
                continue
            rows = db.execute(f'SELECT DISTINCT "{name}" FROM "{table}" LIMIT 400').fetchall()
            pattern = _shape([r[0] for r in rows])
            if pattern:
                out.append((table, name, pattern))
    return tuple(out)


_SHAPES: dict[str, tuple] = {}


def code_shapes(db: sqlite3.Connection, key: str | None) -> tuple:
    if key and key in _SHAPES:
        return _SHAPES[key]
    shapes = tuple((t, c, re.compile(p)) for t, c, p in _shapes_of(db))
    if key:
        if len(_SHAPES) > 256:
            _SHAPES.clear()
        _SHAPES[key] = shapes
    return shapes


def exists(db: sqlite3.Connection, table: str, column: str, value: Any) -> bool:
    row = db.execute(f'SELECT 1 FROM "{table}" WHERE "{column}" = ? COLLATE NOCASE LIMIT 1',
                     (value,)).fetchone()
    return row is not None


class EpisodeState:
    """The episode's evidence: both databases, the calls, and what changed."""

    def __init__(self, initial, final, trajectory: Sequence[Step], prompt: str,
                 skip_tables: Sequence[str], skip_columns: Sequence[str],
                 template_key: str | None) -> None:
        self.initial, self.final, self.prompt = initial, final, prompt
        self.trajectory = list(trajectory)
        self.skip_tables, self.skip_columns = set(skip_tables), set(skip_columns)
        self.template_key = template_key
        self._touched: dict[str, Any] | None = None
        self._created: dict[str, list[dict[str, Any]]] = {}
        # Rows that were there before and after, as (before, after), where they differ.
        self.changes: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
        self._said: set[str] | None = None

    # -- what the agent was told or saw ---------------------------------------------------
    def said(self) -> set[str]:
        """Every scalar of every successful reply, case-folded, plus the prompt's words."""
        if self._said is None:
            out: set[str] = set()
            for step in self.trajectory:
                out.update(str(v).casefold() for v in leaves([step.output, step.arguments]))
            self._said = out
        return self._said

    def heard(self, text: str) -> bool:
        folded = text.casefold()
        return folded in self.said() or re.search(
            r"(?<![\w-])" + re.escape(folded) + r"(?![\w-])", self.prompt.casefold()) is not None

    def created(self) -> dict[str, list[dict[str, Any]]]:
        """Per table, the rows this episode made."""
        self.touched()
        return self._created

    def writes(self) -> list[Step]:
        return [s for s in self.trajectory if s.ok and (words(s.tool) or [""])[0]
                not in _READ_VERBS]

    # -- what changed ---------------------------------------------------------------------
    def touched(self) -> dict[str, dict[str, Any]]:
        """Per table: keys of rows changed, added or removed (bookkeeping aside), and the rows
        themselves (new or old) to read references from."""
        if self._touched is None:
            self._touched = {}
            for table in tables(self.final):
                if table in self.skip_tables or table_digest(self.initial, table) == \
                        table_digest(self.final, table):
                    continue
                ignored = {c.split(".", 1)[1] for c in self.skip_columns
                           if c.startswith(("*.", f"{table}."))}
                _, before = snapshot(self.initial, table)
                _, after = snapshot(self.final, table)
                rows = {}
                for key in set(after) - set(before):
                    self._created.setdefault(table, []).append(after[key])
                for key in set(before) | set(after):
                    old, new = before.get(key), after.get(key)
                    if old is None or new is None or any(
                            new.get(c) != v for c, v in old.items() if c not in ignored):
                        rows[key] = new if new is not None else old
                        if old is not None and new is not None:
                            self.changes.setdefault(table, []).append((old, new))
                if rows:
                    self._touched[table] = rows
        return self._touched


def is_state_column(column: str) -> bool:
    """Whether a column holds a record's state, role or level (by its name)."""
    return column in _STATE_COLUMNS or column.endswith(("_status", "_state", "_role"))


def state_tables(db: sqlite3.Connection, key: str | None) -> tuple:
    """(table, label column or None, {state column: its values}) for tables with a state column
    of a handful of word values. A table without a label (a permission grant) is reached
    through the records its rows link."""
    cache = _STATES.get(key) if key else None
    if cache is not None:
        return cache
    out = []
    for table in tables(db):
        names = [c[0] for c in columns(db, table)]
        label = next((c for c in _LABEL_COLUMNS if c in names), None)
        found = {}
        for column in names:
            if not is_state_column(column):
                continue
            values = [r[0] for r in db.execute(
                f'SELECT DISTINCT "{column}" FROM "{table}" LIMIT 40').fetchall()]
            if 2 <= len(values) <= 15 and all(isinstance(v, str) and re.fullmatch(
                    r"[A-Za-z][A-Za-z _-]{2,30}", v) for v in values):
                found[column] = tuple(values)
        if found:
            out.append((table, label, found))
    result = tuple(out)
    if key:
        _STATES[key] = result
    return result


_STATES: dict[str, tuple] = {}
_LABELS: dict[str, dict[str, list[str]]] = {}


def labels(db: sqlite3.Connection, key: str | None) -> dict[str, list[tuple[str, str]]]:
    """Every label of a record with a single-column key (four characters or more), case-folded,
    with the (table, key) of the records it names."""
    if key and key in _LABELS:
        return _LABELS[key]
    out: dict[str, list[tuple[str, str]]] = {}
    for table in tables(db):
        cols = columns(db, table)
        keys = [c[0] for c in cols if c[2]]
        if len(keys) != 1:
            continue
        # Every column that names the row ("cli" and "harborline/cli"; a login that is the key).
        for label in [c for c in _LABEL_COLUMNS if c in [x[0] for x in cols]]:
            for name, ident in db.execute(f'SELECT "{label}", "{keys[0]}" FROM "{table}"'):
                if isinstance(name, str) and len(name) >= 4:
                    records = out.setdefault(name.casefold(), [])
                    if (table, str(ident)) not in records:
                        records.append((table, str(ident)))
    if key:
        if len(_LABELS) > 64:
            _LABELS.clear()
        _LABELS[key] = out
    return out


def mentions(state: EpisodeState, text: str) -> list[tuple[int, str, list[tuple[str, str]]]]:
    """(position, label, records) of every record ``text`` names by its label, in order."""
    folded = text.casefold()
    found = []
    index = dict(labels(state.initial, state.template_key))
    for name, records in _made_labels(state).items():
        index[name] = list(index.get(name, [])) + records
    for name, records in index.items():
        if name in folded and len(records) <= 40:
            for m in re.finditer(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", folded):
                found.append((m.start(), name, records))
    # A label inside a longer one ("Dune" in "Children of Dune") names nothing of its own.
    found.sort(key=lambda f: (f[0], -len(f[1])))
    out, end = [], -1
    for position, name, records in found:
        if position >= end:
            out.append((position, name, records))
            end = position + len(name)
    return out


def _made_labels(state: EpisodeState) -> dict[str, list[tuple[str, str]]]:
    """The labels of the records this episode made or renamed, as :func:`labels` gives the
    template's."""
    out: dict[str, list[tuple[str, str]]] = {}
    state.touched()
    changed = {t: [new for _, new in pairs] for t, pairs in state.changes.items()}
    for table, rows in list(state.created().items()) + list(changed.items()):
        keys = [c[0] for c in columns(state.final, table) if c[2]]
        if len(keys) != 1:
            continue
        for row in rows:
            for label in _LABEL_COLUMNS:
                name = row.get(label)
                if isinstance(name, str) and len(name) >= 4:
                    out.setdefault(name.casefold(), []).append((table, str(row[keys[0]])))
    return out


def named_keys(state: EpisodeState, text: str) -> set[str]:
    """The keys of the records ``text`` names by label."""
    return {key for _, _, records in mentions(state, text) for _, key in records}


def linking_rows(state: EpisodeState, table: str, keys: set[str], *, at_least: int = 1
                 ) -> list[dict[str, Any]]:
    """The rows of ``table``, before and after, that link the most of ``keys`` (``at_least``
    of them): the grant of this page to this member rather than her other grants."""
    scored = []
    for tag, db in (("final", state.final), ("initial", state.initial)):
        cursor = db.execute(f'SELECT * FROM "{table}"')
        cols = [d[0] for d in cursor.description]
        for raw in cursor.fetchall():
            row = dict(zip(cols, raw, strict=True), _db=tag)
            hits = sum(1 for k, v in row.items() if k != "_db" and str(v) in keys)
            if hits:
                scored.append((hits, row))
    best = max((h for h, _ in scored), default=0)
    return [r for h, r in scored if h == best] if best >= at_least else []


def named_rows(state: EpisodeState, table: str, label: str, text: str, actor: str | None
                ) -> dict[str, list[dict[str, Any]]]:
    """The rows of ``table`` that ``text`` names by their label (or, for "you", that belong to
    the acting user), before and after the episode (``_db``: "initial" or "final"), grouped by
    the name they go by."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for tag, db in (("final", state.final), ("initial", state.initial)):
        cursor = db.execute(f'SELECT * FROM "{table}"')
        cols = [d[0] for d in cursor.description]
        for raw in cursor.fetchall():
            row = dict(zip(cols, raw, strict=True), _db=tag)
            name = row.get(label)
            hit = isinstance(name, str | int) and len(str(name)) >= 4 and re.search(
                r"(?<![\w-])" + re.escape(str(name)) + r"(?![\w-])", text, re.I)
            owned = actor is not None and any(str(v) == actor for v in row.values())
            if hit or owned:
                groups.setdefault(str(name) if hit else f"you ({actor})", []).append(row)
    return groups if sum(map(len, groups.values())) <= 400 else {}


def in_database(db: sqlite3.Connection, quote: str) -> bool:
    needle = f"%{quote.strip().strip('.')}%"
    for table in tables(db):
        texts = [c[0] for c in columns(db, table) if c[1] in ("TEXT", "") or "CHAR" in c[1]]
        if not texts:
            continue
        where = " OR ".join(f'"{c}" LIKE ?' for c in texts)
        if db.execute(f'SELECT 1 FROM "{table}" WHERE {where} LIMIT 1',
                      (needle,) * len(texts)).fetchone():
            return True
    return False

"""Programmatic tasks for mined environments, written from what each tool does.

A mined server keeps its own tool names (``close_issue``, ``shelly_set_config``,
``ue_destroy_actor``), so the domain-pack shapes, written over ``search_``/``update_`` names, do
not apply, and a walk over the tool graph can only name a tool by its words. The compiler knows
more: each kept tool's binding says what it does (lists, looks up, creates, changes, moves
through a lifecycle, marks, deletes), to which table, and which parameter names the row. This
module turns that into requests about named records, as a person would write them:

* change a field of a named record to a stated value;
* move a record through its lifecycle ("close the issue "Cedar quarterly report"");
* mark or unmark a record;
* add a record with stated values, under a named parent;
* delete a record nothing refers to;
* answer a question: how many records are in a state, or a named record's field;
* two of these in one request.

The reference solution finds the record the way an agent must (the server's own listing,
filtered by the label where it can search), then acts. The rubric is assembled from the
solution's effect (``assemble.py``) and gated like every other task.
"""

from __future__ import annotations

import datetime as dt
import random
import re
import sqlite3
from dataclasses import dataclass
from typing import Any

from agentworld.servers import Environment, Session
from agentworld.servers.world.mined.model import Binding
from agentworld.servers.world.mined.ops import FROZEN_STATES, MAX_PAGE, Table
from agentworld.servers.world.mined.text import THEMES

from .assemble import TaskRejected, assemble
from .record import TaskRecord

__all__ = ["mined_tasks", "MinedDraft"]

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}")
# Columns a person does not set by hand.
_SKIP_KINDS = frozenset({"json", "key", "url", "phone"})


@dataclass
class MinedDraft:
    shape: str
    prompt: str
    calls: list[list[Any]]
    answer: dict[str, Any] | None = None


def _words(name: str) -> str:
    return name.replace("_", " ").strip()


def _quote(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value)


class _Context:
    """The environment, its bindings by what they do, and a private copy of its data."""

    def __init__(self, env: Environment, compiled, db: sqlite3.Connection,
                 rng: random.Random) -> None:
        self.env, self.compiled, self.db, self.rng = env, compiled, db, rng
        self.tables: dict[str, Table] = compiled.tables
        self.title = compiled.card.title
        names = set(env.tools.names())
        self.bindings = [b for b in compiled.bindings if b.tool in names]
        self.refs_to: dict[str, list[tuple[str, str]]] = {}
        for table in self.tables.values():
            for column, col in table.entity.columns.items():
                if col.kind == "ref":
                    self.refs_to.setdefault(col.ref, []).append((table.entity.plural, column))

    def of(self, op: str, entity: str | None = None) -> list[Binding]:
        return [b for b in self.bindings if b.op == op and (entity is None or b.entity == entity)]

    def rows(self, entity: str, where: str = "1 = 1", *params: Any) -> list[dict[str, Any]]:
        table = self.tables[entity]
        cursor = self.db.execute(f"SELECT * FROM {table.name} WHERE {where} ORDER BY id", params)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]

    def pick(self, items):
        items = list(items)
        return self.rng.choice(items) if items else None

    # -- naming a record ---------------------------------------------------------------------
    def label_of(self, entity: str, row: dict[str, Any]) -> str | None:
        """The record's label when it names it alone (a quoted title or name)."""
        e = self.tables[entity].entity
        col = e.columns.get(e.label)
        value = row.get(e.label)
        if col is None or col.kind not in ("text", "name", "key") or not isinstance(value, str) \
                or not value.strip():
            return None
        same = self.db.execute(f'SELECT COUNT(*) FROM {self.tables[entity].name} WHERE "{e.label}"'
                               " = ?", (value,)).fetchone()[0]
        return value if same == 1 else None

    def name(self, entity: str, row: dict[str, Any], binding: Binding) -> str | None:
        """How the request names the record the binding acts on: its label, or the key the
        binding takes when that key is a plain value (a symbol, a slug) rather than an id."""
        noun = _words(entity)
        if binding.key and binding.key_column != "id":
            return f"the {noun} {_quote(row.get(binding.key_column))}"
        label = self.label_of(entity, row)
        return f'the {noun} "{label}"' if label is not None else None

    def finder(self, entity: str, row: dict[str, Any], binding: Binding) -> list[list[Any]] | None:
        """The calls an agent makes to find the record's key from its label, or [] when the
        request states the key itself; None when the server gives no way to find it, or the
        tool takes no key at all (it cannot be pointed at the named record)."""
        if not binding.key:
            return None
        if binding.key_column != "id":
            return []
        return self.lookup(entity, row)

    def lookup(self, entity: str, row: dict[str, Any]) -> list[list[Any]] | None:
        """The server's own listing call that shows the record named by its label (its text
        search where it has one), or None when no listing shows it."""
        label = self.label_of(entity, row)
        if label is None:
            return None
        for lister in self.of("list", entity):
            required = [p["name"] for p in lister.params if p.get("required")]
            if any(r not in lister.paging for r in required):
                continue
            args: dict[str, Any] = {}
            if lister.query:
                args[lister.query] = label
            limit = next((n for n, role in lister.paging.items() if role == "limit"), None)
            if limit and not lister.query:
                kind = next(p["type"] for p in lister.params if p["name"] == limit)
                args[limit] = MAX_PAGE if kind == "integer" else str(MAX_PAGE)
            if self._shows(lister, args, row["id"]):
                return [[lister.tool, args]]
        return None

    def _shows(self, lister: Binding, args: dict[str, Any], row_id: Any) -> bool:
        """Whether the listing call's reply (its first page) holds the row."""
        session = Session(self.env, seed=0)
        try:
            result = session.call(lister.tool, args)
        finally:
            session.close()
        listed = result.data.get(self.tables[lister.entity].entity.plural, []) if result.ok \
            else []
        return any(r.get("id") == row_id for r in listed)

    def key_args(self, binding: Binding, row: dict[str, Any]) -> dict[str, Any]:
        return {binding.key: row[binding.key_column]} if binding.key else {}

    def opener(self) -> str:
        return self.pick([f"I look after our {self.title} account.",
                          f"I'm tidying up {self.title} this morning.",
                          f"Quick one for {self.title}.",
                          f"I need a hand with {self.title}.",
                          f"Some housekeeping in {self.title}, please."])


# -- values --------------------------------------------------------------------------------------

def _new_value(ctx: _Context, entity: str, column: str, current: Any) -> Any:
    """A plausible different value for a column: another value the table already holds (its
    vocabulary), the other truth value, a date some days away."""
    col = ctx.tables[entity].entity.columns[column]
    if col.kind == "bool":
        return not bool(current)
    if col.kind == "enum":
        return ctx.pick([v for v in col.values if v != current])
    if col.kind in ("date", "datetime") and isinstance(current, str) and len(current) >= 10:
        day = dt.date.fromisoformat(current[:10]) + dt.timedelta(days=ctx.rng.choice([-1, 1])
                                                                 * ctx.rng.randint(3, 20))
        return day.isoformat() + current[10:]
    seen = {r[0] for r in ctx.db.execute(
        f'SELECT DISTINCT "{column}" FROM {ctx.tables[entity].name} WHERE "{column}" IS NOT NULL')}
    return ctx.pick(sorted(v for v in seen - {current} if isinstance(v, int | float | str)
                           and not isinstance(v, bool)))


def _said(value: Any) -> str:
    """A value as a request states it: text quoted, dates and numbers bare."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str) and _DAY.match(value):
        return value
    return _quote(value)


def _param(binding: Binding, name: str) -> dict[str, Any]:
    return next(p for p in binding.params if p["name"] == name)


def _fits(binding: Binding, name: str, value: Any) -> bool:
    kind = _param(binding, name)["type"]
    return {"string": isinstance(value, str), "integer": isinstance(value, int)
            and not isinstance(value, bool), "number": isinstance(value, int | float)
            and not isinstance(value, bool), "boolean": isinstance(value, bool)}.get(kind, False)


def _acting_rows(ctx: _Context, b: Binding) -> list[dict[str, Any]]:
    e = ctx.tables[b.entity].entity
    rows = ctx.rows(b.entity)
    if e.states and b.op in ("update", "flag", "clear"):
        rows = [r for r in rows if r.get("status") not in FROZEN_STATES]
    return rows


def _target(ctx: _Context, b: Binding, rows) -> tuple[dict, str, list] | None:
    """A row the binding can act on, its name in the request and the calls that find it."""
    rows = list(rows)
    ctx.rng.shuffle(rows)
    for row in rows[:6]:
        name = ctx.name(b.entity, row, b)
        found = ctx.finder(b.entity, row, b) if name else None
        if name and found is not None:
            return row, name, found
    return None


# -- shapes -------------------------------------------------------------------------------------

def change_field(ctx: _Context) -> MinedDraft | None:
    """Set one field of a named record to a stated value."""
    options = []
    for b in ctx.of("update"):
        e = ctx.tables[b.entity].entity
        for param, column in b.columns.items():
            col = e.columns.get(column)
            if col is not None and col.kind not in _SKIP_KINDS | {"ref"} and not col.unique \
                    and column != e.label and param != b.key:
                options.append((b, param, column))
    b, param, column = ctx.pick(options) or (None, None, None)
    if b is None:
        return None
    found = _target(ctx, b, _acting_rows(ctx, b))
    if found is None:
        return None
    row, name, calls = found
    value = _new_value(ctx, b.entity, column, row.get(column))
    if value is None or not _fits(b, param, value):
        return None
    what = _words(column)
    prompt = ctx.pick([f"Please change the {what} of {name} to {_said(value)}.",
                       f"The {what} on {name} is out of date; it should be {_said(value)}.",
                       f"Could you set the {what} of {name} to {_said(value)}? Leave the rest "
                       "as it is."])
    return MinedDraft("change_field", prompt, calls + [
        [b.tool, {**ctx.key_args(b, row), param: value}]])


def _act(verb: str, target: str, name: str) -> str:
    verb = _words(verb)
    if verb in ("mark", "set", "flag"):
        return f"mark {name} as {_words(target)}"
    return f"{verb} {name}"


def move(ctx: _Context) -> MinedDraft | None:
    """Move a named record through its lifecycle with the server's own verb."""
    b = ctx.pick(ctx.of("transition"))
    if b is None:
        return None
    e = ctx.tables[b.entity].entity
    sources, target = e.moves.get(b.tool, ((), ""))
    marks = ", ".join("?" for _ in sources) or "NULL"
    found = _target(ctx, b, ctx.rows(b.entity, f"status IN ({marks})", *sources))
    if found is None:
        return None
    row, name, calls = found
    required = [p["name"] for p in b.params if p.get("required") and p["name"] != b.key]
    if required:
        return None
    act = _act(b.verb or b.tool.split("_")[0], target, name)
    prompt = ctx.pick([f"Please {act}.", f"{act[0].upper()}{act[1:]}, please; "
                       f"it is still \"{row['status']}\".",
                       f"Could you {act}? That's all for now."])
    return MinedDraft("move", prompt, calls + [[b.tool, ctx.key_args(b, row)]])


def mark(ctx: _Context) -> MinedDraft | None:
    """Mark or unmark a named record (star, pin, subscribe)."""
    b = ctx.pick(ctx.of("flag"))
    if b is None or not b.target:
        return None
    value = 1 if b.flag_value else 0
    found = _target(ctx, b, [r for r in _acting_rows(ctx, b) if r.get(b.target) != value])
    if found is None or any(p.get("required") and p["name"] != b.key for p in b.params):
        return None
    row, name, calls = found
    verb = _words(b.tool).split(" ")[0] if b.verb == "" else _words(b.verb)
    prompt = ctx.pick([f"Please {verb} {name}.", f"Could you {verb} {name} for me?"])
    return MinedDraft("mark", prompt, calls + [[b.tool, ctx.key_args(b, row)]])


def remove(ctx: _Context) -> MinedDraft | None:
    """Delete a named record that nothing refers to."""
    b = ctx.pick(ctx.of("delete"))
    if b is None or any(p.get("required") and p["name"] != b.key for p in b.params):
        return None
    refs = ctx.refs_to.get(b.entity, [])

    def free(row) -> bool:
        return all(not ctx.db.execute(f'SELECT 1 FROM "{plural}" WHERE "{column}" = ? LIMIT 1',
                                      (row["id"],)).fetchone() for plural, column in refs)

    found = _target(ctx, b, [r for r in ctx.rows(b.entity) if free(r)])
    if found is None:
        return None
    row, name, calls = found
    prompt = ctx.pick([f"Please delete {name}; we no longer need it.",
                       f"{name[0].upper()}{name[1:]} was a mistake. Remove it, please.",
                       f"Could you get rid of {name}?"])
    return MinedDraft("remove", prompt, calls + [[b.tool, ctx.key_args(b, row)]])


_PLAN_WORDS = ("review", "rollout", "pilot", "refresh", "audit", "kickoff", "handover", "update")


def _fresh_label(ctx: _Context, entity: str) -> str:
    """A name no record of the table has yet: "Harbor kickoff"."""
    e = ctx.tables[entity].entity
    taken = {r[0] for r in ctx.db.execute(f'SELECT "{e.label}" FROM {ctx.tables[entity].name}')}
    for _ in range(40):
        label = f"{ctx.pick(THEMES)} {ctx.pick(_PLAN_WORDS)}"
        if label not in taken:
            return label
    return f"{ctx.pick(THEMES)} {ctx.pick(_PLAN_WORDS)} {len(taken) + 1}"


def _settable(e, b: Binding, name: str) -> bool:
    column = b.columns.get(name)
    col = e.columns.get(column) if column else None
    return col is not None and col.kind not in _SKIP_KINDS and not col.unique \
        and column != e.label


def add(ctx: _Context) -> MinedDraft | None:
    """Add a record with a new name and a stated value, under a named parent where it needs
    one."""
    b = ctx.pick(ctx.of("create"))
    if b is None:
        return None
    e = ctx.tables[b.entity].entity
    label_param = next((p for p, c in b.columns.items() if c == e.label), None)
    if label_param is None or e.columns[e.label].kind not in ("text", "name"):
        return None
    optional = [p["name"] for p in b.params if not p.get("required") and _settable(e, b, p["name"])]
    chosen = [p["name"] for p in b.params if p.get("required") and p["name"] != label_param]
    chosen += [ctx.pick(optional)] if optional else []
    args: dict[str, Any] = {label_param: _fresh_label(ctx, b.entity)}
    owners, values, calls = [], [], []
    for name in chosen:
        column = b.columns.get(name)
        col = e.columns.get(column) if column else None
        if col is not None and col.kind == "ref":
            parents = ctx.rows(col.ref)
            parent = ctx.pick(parents[: max(1, len(parents) * 4 // 5)])
            label = ctx.label_of(col.ref, parent) if parent else None
            lookup = ctx.lookup(col.ref, parent) if label else None
            if lookup is None or not _fits(b, name, parent["id"]):
                return None
            args[name] = parent["id"]
            owners.append(f'for the {_words(col.ref)} "{label}"')
            calls += lookup
        elif _settable(e, b, name):
            value = _new_value(ctx, b.entity, column, None)
            if value is None or not _fits(b, name, value):
                return None
            args[name] = value
            values.append(f"{_words(column)} {_said(value)}")
        else:
            return None                      # a required value a person would not state
    noun = _words(b.entity)
    text = f'{"an" if noun[:1] in "aeiou" else "a"} {noun} called "{args[label_param]}"' + "".join(
        " " + o for o in owners)
    if values:
        text += " with " + ", ".join(values)
    prompt = ctx.pick([f"Please add {text}.", f"Could you create {text}?",
                       f"We need {text}. Please set it up."])
    return MinedDraft("add", prompt, calls + [[b.tool, args]])


def count_in_state(ctx: _Context) -> MinedDraft | None:
    """How many records are in a state: a listing or count filtered by status."""
    options = [(b, p) for b in ctx.of("list") + ctx.of("count") for p, c in b.columns.items()
               if c == "status" and not any(q.get("required") and q["name"] != p
                                            for q in b.params)]
    b, param = ctx.pick(options) or (None, None)
    if b is None:
        return None
    states = [r[0] for r in ctx.db.execute(
        f"SELECT status FROM {ctx.tables[b.entity].name} GROUP BY status HAVING COUNT(*) >= 2")]
    state = ctx.pick(states)
    if state is None or not _fits(b, param, state):
        return None
    enum = _param(b, param).get("enum")
    if enum and state not in enum:
        return None
    total = ctx.db.execute(f"SELECT COUNT(*) FROM {ctx.tables[b.entity].name} WHERE status = ?",
                           (state,)).fetchone()[0]
    args: dict[str, Any] = {param: state}
    limit = next((n for n, role in b.paging.items() if role == "limit"), None)
    if b.op == "list" and limit and _param(b, limit)["type"] == "integer":
        args[limit] = MAX_PAGE
    plural = _words(ctx.tables[b.entity].entity.plural)
    prompt = ctx.pick([f'How many {plural} have the status "{state}" right now?',
                       f'I need a number for a report: how many {plural} are in "{state}"?'])
    return MinedDraft("count_in_state", prompt, [[b.tool, args]],
                      {"type": "number", "value": total})


def read_field(ctx: _Context) -> MinedDraft | None:
    """A named record's field, read with the server's lookup."""
    options = []
    for b in ctx.of("get"):
        e = ctx.tables[b.entity].entity
        for column, col in e.columns.items():
            if col.kind in ("text", "enum", "int", "float", "date", "city", "country", "company",
                            "name") and column != e.label and not col.unique:
                options.append((b, column, col))
    b, column, col = ctx.pick(options) or (None, None, None)
    if b is None or any(p.get("required") and p["name"] != b.key for p in b.params):
        return None
    found = _target(ctx, b, [r for r in ctx.rows(b.entity) if r.get(column) not in (None, "")])
    if found is None:
        return None
    row, name, calls = found
    value = row[column]
    if col.kind in ("int", "float"):
        answer = {"type": "number", "value": value}
    elif col.kind == "date":
        answer = {"type": "date", "value": str(value)[:10]}
    else:
        answer = {"type": "text", "value": str(value),
                  "domain": {"table": ctx.tables[b.entity].entity.plural, "column": column}}
    what = _words(column)
    prompt = ctx.pick([f"What is the {what} of {name}?",
                       f"Can you tell me the {what} on {name}?"])
    return MinedDraft("read_field", prompt, calls + [[b.tool, ctx.key_args(b, row)]], answer)


ACTIONS = {"change_field": change_field, "move": move, "mark": mark, "remove": remove,
           "add": add}
QUESTIONS = {"count_in_state": count_in_state, "read_field": read_field}


def two_things(ctx: _Context) -> MinedDraft | None:
    """Two changes in one request, on different records."""
    first, second = (ctx.pick(list(ACTIONS.values())) for _ in range(2))
    a, b = first(ctx), second(ctx)
    if a is None or b is None or a.calls[-1][0] == b.calls[-1][0]:
        return None
    lower = b.prompt[0].lower() + b.prompt[1:]
    return MinedDraft(f"{a.shape}+{b.shape}", f"Two things, please. {a.prompt} Then, {lower}",
                      a.calls + b.calls)


SHAPES = {**ACTIONS, **QUESTIONS, "two_things": two_things}
_PER_SHAPE = 2          # so one easy shape (a field read) does not fill an environment's set


def mined_tasks(env: Environment, compiled, db: sqlite3.Connection, rng: random.Random, *,
                count: int, start: int = 0) -> list[TaskRecord]:
    """Up to ``count`` tasks over as many shapes as the server's tools support."""
    ctx = _Context(env, compiled, db, rng)
    out: list[TaskRecord] = []
    order = list(SHAPES)
    rng.shuffle(order)
    made: dict[str, int] = {}
    for attempt in range(count * 6):
        if len(out) >= count:
            break
        shape = order[attempt % len(order)]
        if made.get(shape, 0) >= _PER_SHAPE:
            continue
        draft = SHAPES[shape](ctx)
        if draft is None or any(r.prompt.endswith(draft.prompt) for r in out):
            continue
        prompt = f"{ctx.opener()} {draft.prompt}"
        try:
            record = assemble(env, id=f"{compiled.card.id}/mined-{start + len(out):03d}",
                              kind="programmatic", prompt=prompt, calls=draft.calls,
                              answer=draft.answer,
                              metadata={"template": draft.shape, "calls": len(draft.calls),
                                        "tools": sorted({c[0] for c in draft.calls})})
        except (TaskRejected, ValueError):
            continue
        out.append(record)
        made[shape] = made.get(shape, 0) + 1
    return out

"""A task's effect on the database, read from its reference solution, as exact checks.

The principle (docs/tasks.md, "What a verifier checks"): every value the request states is
checked, every value the system generates is free, and every other column of a row the task
creates or changes holds what the service writes on its own.

The reference solution is run three times from the template:

* **a**, as the episode would run it;
* **b**, with a shifted clock and a reseeded RNG: a value that differs depends on timing or
  chance, not on what the agent did;
* **c**, with its independent writes in another order (when it has any and the prompt does not
  ask for an order): a value that differs depends on the order of steps the request leaves
  open, such as merge-commit hashes or sequence numbers.

A value that differs between the runs is free, unless the request dictated it (a reference
argument), and so is a new hash or generated id nobody dictated. A date-time that moves with
the clock is free; one the request dictated, or one the service copies from its data, is checked
as an instant. What remains:

* each changed row that existed: its new values (``row_values``);
* each created row: its whole content, empty columns included, so a column nobody asked for
  must keep its default (``row_added``). A reference to another created row is written
  ``{"$created": table, "values": ...}`` so a generated id never appears in a check;
* each removed row (``row_removed``);
* one whole-database guard (``unchanged_elsewhere``) declaring exactly which rows and columns may
  change, how many rows each table gains and which it loses; bookkeeping is left out.
"""

from __future__ import annotations

import random
from typing import Any

from agentworld.servers import Environment, Session

from .checks import Check, snapshot, table_digest
from .order import asks_order, order_checks
from .values import instant, leaves, looks_generated

__all__ = ["run_calls", "effect_checks", "bookkeeping_of", "ReferenceFailed", "dictated_values",
           "independent_order", "probe"]

# Never part of a content match: they identify a row or say when it was written.
_IDENTITY = frozenset({"id", "created_at", "updated_at"})
# Calls the shifted twin's clock is ahead: a little over an hour, so a stamp the service rounds
# to the minute or the hour moves too.
CLOCK_SHIFT = 121


class ReferenceFailed(ValueError):
    """A reference call was refused on replay."""


def run_calls(env: Environment, calls, *, seed: int, shift: int = 0) -> Session:
    """Replay ``calls``; ``shift`` moves the clock and reseeds the session's RNG (but keeps its
    ids) to expose values that depend on timing or chance rather than on the calls. Raises
    ReferenceFailed when a call is refused."""
    session = Session(env, seed=seed)
    if shift:
        session.ctx.rng = random.Random(f"shifted:{seed}:{shift}")
    for _ in range(shift):
        session.ctx.clock.advance()
    for name, args in calls:
        result = session.call(name, args)
        if not result.ok:
            session.close()
            raise ReferenceFailed(f"{name} failed on replay: {result.error}")
    return session


def bookkeeping_of(env: Environment) -> tuple[list[str], list[str]]:
    """(tables, columns) the environment declares as bookkeeping."""
    declared = getattr(env.manifest, "bookkeeping", ()) or ()
    tables = [d for d in declared if "." not in d]
    columns = [d for d in declared if "." in d]
    return tables, columns


def dictated_values(calls) -> tuple[set[str], set[Any]]:
    """(strings, instants) among the reference arguments: what the request states or what an
    earlier reply gave, so an agent had to write exactly that."""
    strings: set[str] = set()
    moments: set[Any] = set()

    def take(value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                take(v)
        elif isinstance(value, list):
            for v in value:
                take(v)
        elif isinstance(value, str):
            strings.add(value)
            moment = instant(value)
            if moment is not None:
                moments.add(moment)

    for _, args in calls:
        take(args)
    return strings, moments


def _scalars(value: Any) -> set[str]:
    return {str(v) for v in leaves(value) if isinstance(v, str | int)}


def probe(env: Environment, calls, *, seed: int, skip_columns=()) -> tuple[list, list[set]]:
    """Run ``calls`` once: (each call's output, the existing rows each call changed, as
    ``(table, key)``). Bookkeeping columns do not count as a change."""
    session = Session(env, seed=seed)
    try:
        tables = _tables(session.db)
        digests = {t: table_digest(session.db, t) for t in tables}
        seen = {t: snapshot(session.db, t)[1] for t in tables}
        outputs, changed = [], []
        for name, args in calls:
            outputs.append(session.call(name, args).data)
            touched: set = set()
            for table in tables:
                digest = table_digest(session.db, table)
                if digest == digests[table]:
                    continue
                ignored = {c.split(".", 1)[1] for c in skip_columns
                           if c.startswith(("*.", f"{table}."))}
                after = snapshot(session.db, table)[1]
                touched |= {(table, key) for key, row in seen[table].items()
                            if key in after and any(after[key].get(c) != v
                                                    for c, v in row.items() if c not in ignored)}
                digests[table], seen[table] = digest, after
            changed.append(touched)
        return outputs, changed
    finally:
        session.close()


def independent_order(env: Environment, calls: list, outputs: list[Any],
                      changed: list[set] | None = None) -> list | None:
    """The calls with each run of consecutive independent writes reversed, or None when there
    is none. Writes are independent when none takes a value another one returned and no two
    change the same existing row (``changed``, from :func:`probe`): two creates under one
    parent are independent, two updates of one record are not."""
    kinds = [env.tools.get(n).kind if n in env.tools else "query" for n, _ in calls]
    # What a call made known: its reply, less what the calls so far were already given.
    given: set[str] = set()
    produced = []
    for (_, args), output in zip(calls, outputs, strict=False):
        given |= _scalars(args)
        produced.append(_scalars(output) - given)
    out = list(calls)
    reordered = False
    i = 0
    while i < len(calls):
        if kinds[i] != "mutation":
            i += 1
            continue
        j = i
        while j + 1 < len(calls) and kinds[j + 1] == "mutation":
            j += 1
        block = list(range(i, j + 1))
        independent = all(not (_scalars(calls[b][1]) & produced[a])
                          and not (changed and changed[a] & changed[b])
                          for a in block for b in block if a < b)
        if len(block) > 1 and independent:
            out[i:j + 1] = [calls[k] for k in reversed(block)]
            reordered = True
        i = j + 1
    return out if reordered else None


class _Runs:
    """The reference run (a) and its twins (b: shifted clock, c: other order), table by table,
    with created rows indexed by id and paired across runs."""

    def __init__(self, initial, final_a, twins, skip_tables: set[str],
                 dictated: tuple[set[str], set[Any]]) -> None:
        self.dictated, self.moments = dictated
        self.tables: dict[str, tuple] = {}
        self.created: dict[Any, tuple[str, dict[str, Any], list[dict[str, Any] | None]]] = {}
        # Codes the template already holds are copied, not made: a new row that carries its
        # pull request's head sha must carry that sha.
        self.known: set[str] = set()
        for table in _tables(initial):
            if table in skip_tables:
                continue
            keys, before = snapshot(initial, table)
            self.known |= {v for r in before.values() for v in r.values() if looks_generated(v)}
            _, after_a = snapshot(final_a, table)
            after_twins = [snapshot(t, table)[1] for t in twins]
            self.tables[table] = (keys, before, after_a, after_twins)
            if len(keys) == 1:
                new_a = [r for k, r in after_a.items() if k not in before]
                pairs = [_pair(new_a, [r for k, r in t.items() if k not in before])
                         for t in after_twins]
                for i, row in enumerate(new_a):
                    self.created[row[keys[0]]] = (table, row, [p[i] for p in pairs])

    def free(self, value: Any, twins: list[Any], *, new: bool) -> bool:
        """Whether a value is the system's to choose: it moved between the runs, it is a
        clock stamp or a generated code nobody dictated."""
        if isinstance(value, str) and value in self.dictated:
            return False
        moment = instant(value)
        if moment is not None and moment in self.moments:
            return False
        if any(t is not _MISSING and t != value for t in twins):
            return True
        return new and looks_generated(value) and value not in self.known

    def content(self, row_a: dict, twins: list[dict | None], keys: list[str], depth: int = 0
                ) -> dict[str, Any]:
        """The stable content of a created row, empty columns included (they must stay empty);
        references to created rows become refs."""
        out = {}
        for column, value in row_a.items():
            if column in _IDENTITY or (len(keys) == 1 and column in keys):
                continue
            if isinstance(value, str) and value in self.created:
                if depth < 1:
                    out[column] = self.ref(value, depth + 1)
                continue
            others = [t.get(column, _MISSING) if t is not None else _MISSING for t in twins]
            if self.free(value, others, new=True):
                continue
            out[column] = value
        return out

    def ref(self, value: str, depth: int = 1) -> dict[str, Any]:
        """``{"$created": table, "values": ...}`` for the id of a row the run created."""
        table, row_a, twins = self.created[value]
        return {"$created": table,
                "values": self.content(row_a, twins, self.tables[table][0], depth)}


_MISSING = object()


def _pair(rows_a: list[dict], rows_t: list[dict]) -> list[dict | None]:
    """Each row of ``rows_a`` with its twin in ``rows_t``: the unused row that agrees with it
    on the most columns (created rows may come in another order and with other ids)."""
    free = list(range(len(rows_t)))
    out: list[dict | None] = []
    for row in rows_a:
        if not free:
            out.append(None)
            continue
        best = max(free, key=lambda j: sum(1 for c, v in row.items()
                                           if c not in _IDENTITY and rows_t[j].get(c) == v))
        free.remove(best)
        out.append(rows_t[best])
    return out


def _tables(db) -> list[str]:
    return [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name")]


def _twin_runs(env: Environment, calls, seed: int, prompt: str) -> list[Session]:
    """Twin b (the clock shifted) and, where the request leaves an order open, twin c (its
    independent writes in the other order)."""
    twins = [run_calls(env, calls, seed=seed, shift=CLOCK_SHIFT)]
    if asks_order(prompt):
        return twins
    outputs, changed = probe(env, calls, seed=seed, skip_columns=bookkeeping_of(env)[1])
    other = independent_order(env, [list(c) for c in calls], outputs, changed)
    if other is not None:
        try:
            twins.append(run_calls(env, other, seed=seed))
        except ReferenceFailed:
            pass  # the order matters to the service itself: nothing is order-free
    return twins


def effect_checks(env: Environment, calls, *, seed: int, prompt: str = "") -> list[Check]:
    """The exact checks of what ``calls`` change, plus the whole-database guard. Raises
    ReferenceFailed when a call is refused."""
    skip_tables, skip_columns = bookkeeping_of(env)
    a = run_calls(env, calls, seed=seed)
    try:
        twins = _twin_runs(env, calls, seed, prompt)
    except ReferenceFailed:
        a.close()
        raise
    initial = env.template.clone()
    try:
        runs = _Runs(initial, a.db, [t.db for t in twins], set(skip_tables),
                     dictated_values(calls))
        checks: list[Check] = []
        guard: dict[str, Any] = {"kind": "unchanged_elsewhere", "changed": {}, "added": {},
                                 "removed": {}, "ignore_tables": skip_tables,
                                 "ignore_columns": skip_columns, "points": 1, "guard": True,
                                 "name": "nothing else changed"}
        for table, state in runs.tables.items():
            checks += _table_checks(runs, table, state, guard)
        checks += order_checks(runs, prompt)
    finally:
        initial.close()
        a.close()
        for t in twins:
            t.close()
    return checks + [guard]


def _table_checks(runs: _Runs, table: str, state: tuple, guard: dict) -> list[Check]:
    keys, before, after_a, after_twins = state
    checks: list[Check] = []
    for key, row in after_a.items():
        old = before.get(key)
        if old is None:
            continue
        # The other order (twin c) frees only what created rows hold: a record two writes
        # changed is checked as the reference left it.
        twins = [t.get(key, {}) for t in after_twins[:1]]
        moved = sorted(c for c, v in row.items() if old.get(c) != v
                       or any(t.get(c, old.get(c)) != old.get(c) for t in twins))
        if not moved:
            continue
        guard["changed"].setdefault(table, {})[key] = moved
        expect = {}
        for column in moved:
            value = row[column]
            if column in _IDENTITY or column in keys:
                continue
            if isinstance(value, str) and value in runs.created:
                expect[column] = runs.ref(value)
            elif not runs.free(value, [t.get(column, _MISSING) for t in twins],
                               new=value != old.get(column)):
                expect[column] = value
        if expect and keys:
            match = dict(zip(keys, [row[k] for k in keys], strict=True))
            checks.append({"kind": "row_values", "table": table, "match": match,
                           "expect": expect, "points": 2,
                           "name": f"{table} {'/'.join(map(str, match.values()))}: "
                                   + ", ".join(f"{c}={_short(v)}" for c, v in expect.items())})
    new_a = [r for k, r in after_a.items() if k not in before]
    if new_a:
        guard["added"][table] = len(new_a)
    pairs = [_pair(new_a, [r for k, r in t.items() if k not in before]) for t in after_twins]
    wanted: dict[str, tuple[dict, int]] = {}
    bare = 0
    for i, row_a in enumerate(new_a):
        values = runs.content(row_a, [p[i] for p in pairs], keys)
        if values:
            label = repr(sorted(values.items(), key=lambda kv: kv[0]))
            wanted[label] = (values, wanted.get(label, (values, 0))[1] + 1)
        else:
            bare += 1
    for values, times in wanted.values():
        checks.append({"kind": "row_added", "table": table, "values": values, "points": 2,
                       "at_least": times, "name": f"new row in {table}"})
    if bare:
        # A row created with nothing stable in it (an api key made with no arguments) is
        # still an effect: the table must gain as many rows as the reference made.
        checks.append({"kind": "row_added", "table": table, "values": {}, "points": 2,
                       "at_least": len(new_a), "name": f"{len(new_a)} new row(s) in {table}"})
    gone = [k for k in before if k not in after_a]
    if gone:
        guard["removed"][table] = gone
        if keys:
            for key in gone:
                match = dict(zip(keys, [before[key][k] for k in keys], strict=True))
                checks.append({"kind": "row_removed", "table": table, "match": match,
                               "points": 2, "name": f"{table} {'/'.join(map(str, match.values()))}"
                                                    " removed"})
    return checks


def _short(value: Any) -> str:
    if isinstance(value, dict):
        return f"new {value.get('$created', '')}"
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."

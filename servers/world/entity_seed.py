"""Seeded rows for one entity that already respect its constraints and read as one history.

Rows are drawn in order; a row that would break a capacity, quota or overlap rule is given a
non-live state instead (a booking that could not fit becomes a cancelled one), which is also how
such rows look in a real system's history. The first referred row is filled to its limit on
purpose, so the capacity and quota rules have something to refuse.

Each row is then made coherent: two references to one table name different rows, references
that must share a group (a voter and the proposal's DAO) do, dates sit on the side of the clock
their state implies (see ``phases.py``), a row is created after the rows it refers to and on the
day of its own origin date (received, requested, issued), moves are stamped after creation, and
nothing is updated after the environment's clock. Policy rows bound the rows that passed them.
"""

from __future__ import annotations

import datetime as dt
import random
import sqlite3
from typing import Any

from .data import POOLS, pool_records
from .entity_schema import EPOCH, SeedValues, id_prefix
from .phases import (
    FREEING,
    date_pairs,
    date_phases,
    downstream,
    holding_states,
    origin_fields,
    past_only,
    policy_states,
    stamps,
)
from .spec import (
    Capacity,
    DateOrder,
    Entity,
    Expiry,
    MaxPerParent,
    NoOverlap,
    Policy,
    PoolKey,
    RefInState,
    SameGroup,
    UniqueTogether,
)

__all__ = ["seed_entity"]

# The last moment a seeded row may carry: the evening before the environment's clock starts.
_LAST_DAY = EPOCH - dt.timedelta(days=1)


def _non_live(entity: Entity, live: tuple[str, ...]) -> str | None:
    """A state for a row that found no room. Under a capacity, one that gives its place back
    (a cancelled booking), not one that used it (a no-show)."""
    states = entity.lifecycle.states if entity.lifecycle else ()
    if not any(isinstance(c, Capacity) for c in entity.constraints):
        return next((s for s in states if s not in live), None)
    held = holding_states(entity, live) if live else set()
    free = [s for s in states if s not in held]
    return next((s for s in free if s in FREEING), free[0] if free else None)


def _status(entity: Entity, i: int, rng: random.Random) -> str | None:
    if not entity.lifecycle:
        return None
    states = entity.lifecycle.states
    if i < len(states):
        return states[i]  # every state appears at least once
    weights = entity.lifecycle.seed_weights or tuple(1 for _ in states)
    return rng.choices(states, weights=weights)[0]


def _holding(entity: Entity, c: Any, row: dict[str, Any], default=None) -> set:
    """The states in which a row counts against ``c``: a capacity also counts rows that used
    their place (a no-show held a seat); other rules count their live states."""
    live = getattr(c, "live_states", None)
    if live is None:
        return {row.get("status")} if default is None else set(default)
    return holding_states(entity, live) if isinstance(c, Capacity) else set(live)


class _Ledger:
    """What the rows drawn so far occupy: windows per resource, use per parent."""

    def __init__(self) -> None:
        self.windows: dict[Any, list[tuple[str, str]]] = {}
        self.used: dict[tuple[str, Any], float] = {}
        self.combos: set[tuple] = set()

    def fits(self, entity: Entity, row: dict[str, Any], parents: dict[str, list]) -> bool:
        for c in entity.constraints:
            if row.get("status") not in _holding(entity, c, row):
                continue
            if isinstance(c, NoOverlap):
                taken = self.windows.get((c.resource, row[c.resource]), [])
                if any(row[c.start] < end and row[c.end] > start for start, end in taken):
                    return False
            elif isinstance(c, Capacity):
                cap = parents[(c.ref, c.capacity_field)].get(row[c.ref], 0)
                want = row[c.amount] if c.amount else 1
                if self.used.get((c.ref, row[c.ref]), 0) + want > cap:
                    return False
            elif isinstance(c, MaxPerParent):
                if self.used.get((f"max:{c.ref}", row[c.ref]), 0) + 1 > c.limit:
                    return False
        return True

    def take(self, entity: Entity, row: dict[str, Any]) -> None:
        for c in entity.constraints:
            if isinstance(c, UniqueTogether):
                self.combos.add((c.fields, tuple(row.get(f) for f in c.fields)))
            if row.get("status") not in _holding(entity, c, row, ()):
                continue
            if isinstance(c, NoOverlap):
                self.windows.setdefault((c.resource, row[c.resource]), []).append(
                    (row[c.start], row[c.end]))
            elif isinstance(c, Capacity):
                key = (c.ref, row[c.ref])
                self.used[key] = self.used.get(key, 0) + (row[c.amount] if c.amount else 1)
            elif isinstance(c, MaxPerParent):
                key = (f"max:{c.ref}", row[c.ref])
                self.used[key] = self.used.get(key, 0) + 1

    def clashes(self, entity: Entity, row: dict[str, Any]) -> bool:
        return any((c.fields, tuple(row.get(f) for f in c.fields)) in self.combos
                   for c in entity.constraints if isinstance(c, UniqueTogether))


class _World:
    """Lookups into the rows seeded before this entity: a referred row's columns, and the ids
    of a table's rows grouped by one column (the members of each DAO)."""

    def __init__(self, conn: sqlite3.Connection, entity: Entity, tables: dict[str, str],
                 rng: random.Random) -> None:
        self.conn, self.entity, self.tables, self.rng = conn, entity, tables, rng
        self._rows: dict[str, dict[str, dict[str, Any]]] = {}

    def row(self, ref_entity: str, ident: Any) -> dict[str, Any]:
        if ref_entity not in self._rows:
            cur = self.conn.execute(f"SELECT * FROM {self.tables[ref_entity]}")
            names = [d[0] for d in cur.description]
            self._rows[ref_entity] = {r[0]: dict(zip(names, r, strict=True)) for r in cur}
        return self._rows[ref_entity].get(ident, {})

    def links(self, ref_entity: str) -> dict[str, str]:
        """The columns of a referred table that refer to other tables: column -> table."""
        table = self.tables[ref_entity]
        return {r[3]: r[2] for r in self.conn.execute(f"PRAGMA foreign_key_list({table})")}

    def is_people(self, table: str) -> bool:
        columns = {r[1] for r in self.conn.execute(f"PRAGMA table_info({table})")}
        return bool(columns & {"email", "full_name", "display_name", "username"})

    def follow(self, row: dict[str, Any], path: str) -> Any:
        """The value at ``path`` starting from ``row``: a column (``dao_id``) or a column of
        the referred row (``member_id.dao_id``)."""
        first, _, column = path.partition(".")
        if not column:
            return row.get(first)
        return self.row(self.entity.field(first).ref, row.get(first)).get(column)

    def candidates_all(self, f) -> list[str]:
        """Every id of the table a reference field points at."""
        self.row(f.ref, None)
        return list(self._rows[f.ref])

    def candidates(self, path: str, target: Any) -> list[str]:
        """Ids for the path's first column whose path leads to ``target``."""
        first, _, column = path.partition(".")
        if not column:
            return []
        ref = self.entity.field(first).ref
        self.row(ref, None)
        return [i for i, r in self._rows[ref].items() if r.get(column) == target]


def _draw(entity: Entity, i: int, values: SeedValues, ids: dict[str, list[str]],
          fill_first: dict[str, str]) -> dict[str, Any]:
    rng = values.rng
    if hasattr(values, "start_row"):
        values.start_row()
    row: dict[str, Any] = {"id": f"{id_prefix(entity)}_{i + 1:06d}"}
    status = _status(entity, i, rng)
    for f in entity.fields:
        if f.kind == "ref":
            pool = ids[f.ref]
            filled = fill_first.get(f.name)
            # Each filled reference gets its own third of the rows, so two quotas on one
            # entity never compete for the same rows.
            turn = list(fill_first).index(f.name) if filled else 0
            if filled and i % 3 == turn % 3:
                row[f.name] = filled
            else:
                # Two references to one table name two different rows (a courier is not the
                # recipient) wherever there is a choice.
                taken = {row[g.name] for g in entity.fields
                         if g.kind == "ref" and g.ref == f.ref and g.name in row}
                free = [p for p in pool if p not in taken] if taken else pool
                row[f.name] = rng.choice(free or pool)
        else:
            row[f.name] = values.value(entity, f, i)
        if not f.required and f.kind != "ref" and rng.random() < 0.15:
            row[f.name] = None
    for c in entity.constraints:
        if isinstance(c, DateOrder | NoOverlap) and row.get(c.start) is not None:
            start = dt.date.fromisoformat(row[c.start])
            row[c.end] = (start + dt.timedelta(days=rng.randint(1, 7))).isoformat()
    if status is not None:
        row["status"] = status
    return row


def _same_groups(entity: Entity, row: dict[str, Any], world: _World, rng,
                 keep: frozenset[str] = frozenset()) -> None:
    """Make each SameGroup hold: a plain right column takes the left reference's group (a
    proposal's DAO is its proposer's), else the left reference moves into the right's group,
    unless it is one ``keep`` holds in place (a parent filled on purpose): then the right one
    moves into the left's."""
    for c in entity.constraints:
        if isinstance(c, SameGroup):
            target = world.follow(row, c.right)
            if world.follow(row, c.left) == target:
                continue
            if "." not in c.right and world.follow(row, c.left) is not None:
                row[c.right] = world.follow(row, c.left)
                continue
            if c.left.split(".")[0] in keep and "." in c.right:
                options = world.candidates(c.right, world.follow(row, c.left))
                if options:
                    row[c.right.split(".")[0]] = rng.choice(sorted(options))
                    continue
            options = world.candidates(c.left, target)
            if options:
                row[c.left.split(".")[0]] = rng.choice(sorted(options))


def _shared_groups(entity: Entity, row: dict[str, Any], world: _World, rng,
                   keep: frozenset[str]) -> None:
    """Two rows this row refers to, of two tables that both belong to one group table (a route's
    vehicle and driver, each of a depot), are taken from the same group: a membership no pack
    needs to declare. People tables are no groups (two things may have different owners)."""
    refs = [f for f in entity.fields if f.kind == "ref" and row.get(f.name) is not None]
    for i, a in enumerate(refs):
        for b in refs[i + 1:]:
            if a.ref == b.ref:
                continue
            links_a, links_b = world.links(a.ref), world.links(b.ref)
            for col_a, group in links_a.items():
                col_b = next((c for c, g in links_b.items() if g == group), None)
                if (col_b is None or group == world.tables[entity.name]
                        or world.is_people(group)):
                    continue
                value_a = world.follow(row, f"{a.name}.{col_a}")
                value_b = world.follow(row, f"{b.name}.{col_b}")
                if value_a is None or value_b is None or value_a == value_b:
                    continue
                moves = [(b, f"{b.name}.{col_b}", value_a), (a, f"{a.name}.{col_a}", value_b)]
                for move, path, target in moves:
                    options = world.candidates(path, target)
                    if options and move.name not in keep:
                        row[move.name] = rng.choice(sorted(options))
                        break
                else:
                    _both_into_one_group(row, world, rng, keep, (a, col_a), (b, col_b))


def _both_into_one_group(row: dict[str, Any], world: _World, rng, keep: frozenset[str],
                         *sides: tuple[Any, str]) -> None:
    """Neither side has a row in the other's group (no driver at that vehicle's depot): take
    both from a group that has rows of each."""
    if any(f.name in keep for f, _ in sides):
        return
    groups = [{world.follow({f.name: i}, f"{f.name}.{col}") for i in world.candidates_all(f)}
              for f, col in sides]
    common = sorted(g for g in set.intersection(*groups) if g is not None)
    if common:
        target = rng.choice(common)
        for f, col in sides:
            row[f.name] = rng.choice(sorted(world.candidates(f"{f.name}.{col}", target)))


def _pool_keys(entity: Entity, row: dict[str, Any], world: _World, values: SeedValues) -> None:
    """Redraw the row's pool fields from the records that agree with the referred row (a result
    of the test the row refers to)."""
    for c in entity.constraints:
        if not isinstance(c, PoolKey):
            continue
        target = world.follow(row, c.path)
        chosen: dict[str, dict[str, str]] = {}
        for f in entity.fields:
            if f.kind != "pool" or c.column not in pool_records(f.source)[0]:
                continue
            table, column = POOLS[f.source]
            if table not in chosen:
                records = [r for r in pool_records(f.source, values.region.code)
                           if r[c.column] == target]
                if not records:
                    break
                chosen[table] = values.rng.choice(records)
            row[f.name] = chosen[table][column] or None


def _shift(value: str, days: int) -> str:
    return (dt.date.fromisoformat(value) + dt.timedelta(days=days)).isoformat()


def _expire_one(entity: Entity, row: dict[str, Any], pending: set[int]) -> None:
    """One row waiting in a state an expiry guards the way out of (a suspended token) has
    already expired, so the expiry rule has a row to refuse."""
    for k, c in enumerate(entity.constraints):
        if k in pending and isinstance(c, Expiry) and row.get(c.field) is not None:
            sources = {s for t in entity.lifecycle.transitions if t.verb in c.moves
                       for s in t.sources}
            if row.get("status") in sources:
                row[c.field] = (EPOCH - dt.timedelta(days=3)).isoformat()
                for o in entity.constraints:
                    if isinstance(o, DateOrder) and o.end == c.field and row.get(o.start):
                        row[o.start] = min(row[o.start], _shift(row[c.field], -30))
                pending.discard(k)


def _phase(entity: Entity, row: dict[str, Any], rng) -> None:
    """Move each date to the side of the clock the row's state implies, keeping date orders."""
    status = row.get("status")
    orders = [c for c in entity.constraints if isinstance(c, DateOrder | NoOverlap)]
    for phase in date_phases(entity):
        value = row.get(phase.field)
        if value is None or status is None:
            continue
        day = dt.date.fromisoformat(value)
        if status in phase.before and day <= EPOCH:
            new = EPOCH + dt.timedelta(days=rng.randint(1, 45))
        elif status in phase.after and day >= EPOCH:
            new = EPOCH - dt.timedelta(days=rng.randint(2, 90))
        else:
            continue
        row[phase.field] = new.isoformat()
        for c in orders:
            start, end = row.get(c.start), row.get(c.end)
            if start is None or end is None or start < end:
                continue
            if c.end == phase.field:
                row[c.start] = _shift(end, -rng.randint(1, 7))
            else:
                row[c.end] = _shift(start, rng.randint(1, 7))


def _policies(entity: Entity, row: dict[str, Any], world: _World, unbroken: set[int]) -> None:
    """Rows that passed a policy respect it; one waiting row per policy of ``unbroken`` breaks
    that policy alone (which then leaves the set), so each policy's rule has a row to refuse."""
    status = row.get("status")
    policies = [(k, c) for k, c in enumerate(entity.constraints)
                if isinstance(c, Policy) and row.get(c.field) is not None]
    breaks = next((k for k, c in policies if k in unbroken and not c.on_create
                   and status in policy_states(entity, c)[1]), None)
    for k, c in policies:
        limit = world.row(entity.field(c.ref).ref, row[c.ref]).get(c.limit)
        if limit is None:
            continue
        f = entity.field(c.field)
        passed, waiting = policy_states(entity, c)
        if k == breaks:
            # A clear breach, as the ones reviewers catch: well past the cap, well short of the
            # threshold, within the field's own range.
            bad = (round(limit * world.rng.uniform(1.2, 2.5)) if c.op == "<="
                   else limit - world.rng.randint(20, 120))
            if f.max is not None:
                bad = min(bad, int(f.max))
            if f.min is not None:
                bad = max(bad, int(f.min))
            if (c.op == "<=" and bad > limit) or (c.op == ">=" and bad < limit):
                row[c.field] = bad
                unbroken.discard(k)
            continue
        if status in waiting and breaks is None and not c.on_create:
            continue  # a row still waiting for the check may break it
        if c.op == "<=" and row[c.field] > limit:
            low = f.min if f.min is not None else 0
            value = round(limit * world.rng.uniform(0.3, 0.95), -2 if f.kind == "money" else 0)
            row[c.field] = type(row[c.field])(min(max(value, low), limit))
        elif c.op == ">=" and row[c.field] < limit:
            top = f.max if f.max is not None else limit + 60
            row[c.field] = min(limit + world.rng.randint(0, 120), top)


def _stamp(day: dt.date, rng, after: str = "") -> str:
    """A time in office hours on ``day``, later than ``after`` when that is the same day."""
    minute = rng.randint(0, 599)
    stamp = f"{day.isoformat()}T{8 + minute // 60:02d}:{minute % 60:02d}:00Z"
    if after and stamp <= after:
        base = dt.datetime.strptime(after, "%Y-%m-%dT%H:%M:%SZ")
        stamp = (base + dt.timedelta(minutes=rng.randint(3, 90))).strftime("%Y-%m-%dT%H:%M:%SZ")
    return stamp


def _clamp_past(entity: Entity, row: dict[str, Any], rng) -> None:
    """Dates that record something done lie before the clock."""
    for f in entity.fields:
        value = row.get(f.name)
        if (f.kind == "date" and value is not None and value > _LAST_DAY.isoformat()
                and f.name not in stamps(entity) and past_only(entity, f.name)):
            row[f.name] = (EPOCH - dt.timedelta(days=rng.randint(1, 30))).isoformat()


def _order(entity: Entity, row: dict[str, Any], rng) -> None:
    """Keep each pair of dates in order: move the one that is free to move (not a stamp, not a
    record of something done, not a date the row's state puts in the past)."""
    fixed = stamps(entity) | {f.name for f in entity.fields if past_only(entity, f.name)}
    fixed |= {p.field for p in date_phases(entity) if row.get("status") in p.after}
    for early, late in date_pairs(entity):
        a, b = row.get(early), row.get(late)
        if a is None or b is None or a <= b:
            continue
        if late in fixed:
            row[early] = _shift(b, -rng.randint(0, 5))
        else:
            row[late] = _shift(a, rng.randint(1, 7))


def _times(entity: Entity, row: dict[str, Any], world: _World, rng) -> None:
    """created_at after the referred rows and on the row's origin day; stamps after it;
    updated_at after both and before the clock."""
    parents = [world.row(f.ref, row[f.name]).get("created_at") for f in entity.fields
               if f.kind == "ref" and row.get(f.name) is not None]
    after = max((p for p in parents if p), default="")
    floor = dt.date.fromisoformat(after[:10]) if after else EPOCH - dt.timedelta(days=400)
    for name in origin_fields(entity):
        value = row.get(name)
        if value is not None and value > _LAST_DAY.isoformat():
            row[name] = _LAST_DAY.isoformat()  # an intake is recorded, so it has happened
        if value is not None and row[name] < floor.isoformat():
            row[name] = floor.isoformat()  # nor before what it refers to existed
    origins = [dt.date.fromisoformat(row[n]) for n in origin_fields(entity)
               if row.get(n) is not None]
    if origins:
        created = min(origins)
    else:
        # Spread creations over the history, most of them early, so rows referring to them
        # still have time to come after.
        span = max((_LAST_DAY - floor).days, 0)
        created = floor + dt.timedelta(days=int(span * rng.random() ** 2))
    created = min(max(created, floor), _LAST_DAY)
    latest = created
    for t in entity.lifecycle.transitions if entity.lifecycle else ():
        if not t.stamp:
            continue
        # A move's stamp is set once the row has made that move (it is in the move's target
        # state or one reached from it), on a day between its creation and the clock.
        if row.get("status") in downstream(entity, {t.target}):
            span = max((_LAST_DAY - created).days, 0)
            value = row.get(t.stamp)
            if value is None or not created.isoformat() <= value <= _LAST_DAY.isoformat():
                row[t.stamp] = (created + dt.timedelta(days=rng.randint(min(1, span), span))
                                ).isoformat()
        else:
            row[t.stamp] = None
    _order(entity, row, rng)
    # Ordering may have moved a stamp before the creation day: the row was created earlier
    # then (never before what it refers to), and its intake dates no later than that.
    moved = [dt.date.fromisoformat(row[n]) for n in stamps(entity) if row.get(n) is not None]
    if moved and min(moved) < created:
        created = max(floor, min(moved))
        for name in stamps(entity):
            if row.get(name) is not None and row[name] < created.isoformat():
                row[name] = created.isoformat()
        for name in origin_fields(entity):
            if row.get(name) is not None and row[name] > created.isoformat():
                row[name] = created.isoformat()
        for early, late in date_pairs(entity):
            a, b = row.get(early), row.get(late)
            if a is not None and b is not None and a > b:
                # The later date follows, on the same side of the clock where it can.
                end = max(a, _LAST_DAY.isoformat()) if b <= _LAST_DAY.isoformat() else None
                row[late] = min(_shift(a, rng.randint(0, 3)), end) if end else _shift(a, 1)
    for t in entity.lifecycle.transitions if entity.lifecycle else ():
        if t.stamp and row.get(t.stamp) is not None:
            latest = max(latest, min(dt.date.fromisoformat(row[t.stamp]), _LAST_DAY))
    updated = min(latest + dt.timedelta(days=rng.randint(0, 20)), _LAST_DAY)
    row["created_at"] = _stamp(created, rng, after)
    row["updated_at"] = _stamp(updated, rng, row["created_at"])


def _first_allowed(conn: sqlite3.Connection, entity: Entity, ref: str,
                   ids: dict[str, list[str]], tables: dict[str, str]) -> str:
    """The referred row to fill to its limit: the first one a new row may still attach to
    (its state allowed by any RefInState on the same reference, and its group's by one on the
    column a SameGroup ties it to), so the quota rule is what refuses the next one."""
    table = tables[entity.field(ref).ref]
    where, params = ["1 = 1"], []
    for c in entity.constraints:
        if isinstance(c, RefInState) and c.ref == ref:
            where.append(f"status IN ({', '.join('?' for _ in c.states)})")
            params += list(c.states)
        if isinstance(c, SameGroup) and c.left.startswith(ref + ".") and "." not in c.right:
            column = c.left.partition(".")[2]
            for r in entity.constraints:
                if isinstance(r, RefInState) and r.ref == c.right:
                    group = tables[entity.field(r.ref).ref]
                    where.append(f"{column} IN (SELECT id FROM {group} WHERE status IN "
                                 f"({', '.join('?' for _ in r.states)}))")
                    params += list(r.states)
    row = conn.execute(f"SELECT id FROM {table} WHERE {' AND '.join(where)} ORDER BY id LIMIT 1",
                       params).fetchone()
    return row[0] if row else ids[entity.field(ref).ref][0]


def seed_entity(conn: sqlite3.Connection, entity: Entity, values: SeedValues,
                ids: dict[str, list[str]], tables: dict[str, str]) -> None:
    rng = values.rng
    fill_first = {ref: _first_allowed(conn, entity, ref, ids, tables)
                  for ref in sorted({c.ref for c in entity.constraints
                                     if isinstance(c, MaxPerParent)
                                     or (isinstance(c, Capacity) and not c.amount)})}
    parents = {}
    for c in entity.constraints:
        if isinstance(c, Capacity):
            table = tables[entity.field(c.ref).ref]
            parents[(c.ref, c.capacity_field)] = dict(conn.execute(
                f"SELECT id, {c.capacity_field} FROM {table}").fetchall())
    world = _World(conn, entity, tables, rng)
    ledger, out = _Ledger(), []
    live = next((c.live_states for c in entity.constraints if hasattr(c, "live_states")), ())
    unbroken = {k for k, c in enumerate(entity.constraints) if isinstance(c, Policy)}
    unexpired = {k for k, c in enumerate(entity.constraints) if isinstance(c, Expiry) and c.moves}
    for i in range(entity.count):
        row = _draw(entity, i, values, ids, fill_first)
        for c in entity.constraints:
            # Rows of the parent filled on purpose are live, so the tools' own count (of live
            # rows) reaches the limit and the rule has something to refuse.
            if (isinstance(c, Capacity | MaxPerParent) and row.get(c.ref) == fill_first.get(c.ref)
                    and row.get("status") not in c.live_states):
                row["status"] = c.live_states[0]
        keep = frozenset(f for f, v in fill_first.items() if row.get(f) == v)
        _same_groups(entity, row, world, rng, keep)
        _shared_groups(entity, row, world, rng, keep)
        _pool_keys(entity, row, world, values)
        for _ in range(8):
            if not ledger.clashes(entity, row):
                break
            row = _draw(entity, i, values, ids, fill_first)
            _same_groups(entity, row, world, rng)
            _shared_groups(entity, row, world, rng, frozenset())
            _pool_keys(entity, row, world, values)
        else:
            continue  # no fresh combination left for a unique-together rule
        _phase(entity, row, rng)
        _clamp_past(entity, row, rng)
        if not ledger.fits(entity, row, parents):
            fallback = _non_live(entity, live)
            if fallback is None:
                continue
            row["status"] = fallback
            _phase(entity, row, rng)
            _clamp_past(entity, row, rng)
        _policies(entity, row, world, unbroken)
        _expire_one(entity, row, unexpired)
        ledger.take(entity, row)
        _times(entity, row, world, rng)
        out.append(row)
    if out:
        cols = list(out[0])
        marks = ", ".join("?" for _ in cols)
        conn.executemany(f"INSERT INTO {entity.plural} ({', '.join(cols)}) VALUES ({marks})",
                         [tuple(r[c] for c in cols) for r in out])
    ids[entity.name] = [r["id"] for r in out]

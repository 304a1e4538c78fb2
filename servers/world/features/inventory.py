"""Inventory: units on hand per target row, a movement ledger, and reorder thresholds."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError
from agentworld.servers import schema as s
from agentworld.servers.manifest import Rule

from ..builder import EnvBuilder, Probe
from ..spec import DateOrder, NoOverlap
from ._base import Target, free_names, page, paging_props, past_stamp, rows, target

__all__ = ["Inventory"]

_TOOLS = ("get_stock", "adjust_stock", "list_low_stock", "set_reorder_level")
INBOUND = ("received", "returned")
OUTBOUND = ("sold", "damaged", "transferred_out")
REASONS = (*INBOUND, *OUTBOUND, "count_correction")
_LOCATIONS = ("Main warehouse", "Back room", "Store floor", "Overflow depot")


def _tables(t: Target) -> tuple[str, str]:
    return f"{t.name}_stock", f"{t.name}_stock_moves"


class Inventory:
    name = "inventory"
    sources: frozenset[str] = frozenset()

    def applies(self, archetype) -> bool:
        """For services whose primary entity is a thing kept in stock, not a booking."""
        primary = archetype.entity(archetype.primary)
        booking = any(isinstance(c, NoOverlap | DateOrder) for c in primary.constraints)
        return not booking and free_names(archetype, _TOOLS, ("{t}_stock", "{t}_stock_moves"))

    def extend_schema(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        t = target(b.archetype, tables)
        stock, moves = _tables(t)
        reasons = ", ".join(f"'{r}'" for r in REASONS)
        b.schema.append(
            f"CREATE TABLE {stock} (\n"
            f"    id TEXT PRIMARY KEY,\n"
            f"    {t.key} TEXT NOT NULL UNIQUE REFERENCES {t.table}(id),\n"
            f"    on_hand INTEGER NOT NULL CHECK (on_hand >= 0),\n"
            f"    reorder_level INTEGER NOT NULL CHECK (reorder_level >= 0),\n"
            f"    reorder_quantity INTEGER NOT NULL CHECK (reorder_quantity > 0),\n"
            f"    location TEXT NOT NULL CHECK (length(location) <= 100),\n"
            f"    updated_at TEXT NOT NULL\n);\n"
            f"CREATE TABLE {moves} (\n"
            f"    id TEXT PRIMARY KEY,\n"
            f"    {t.key} TEXT NOT NULL REFERENCES {stock}({t.key}),\n"
            f"    delta INTEGER NOT NULL CHECK (delta <> 0),\n"
            f"    reason TEXT NOT NULL CHECK (reason IN ({reasons})),\n"
            f"    balance_after INTEGER NOT NULL CHECK (balance_after >= 0),\n"
            f"    created_at TEXT NOT NULL\n);\n"
            f"CREATE INDEX ix_{moves}_target ON {moves}({t.key});")

    def extend(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        t = target(b.archetype, tables)
        b.seeders.append(lambda conn, rng: _seed(conn, rng, t))
        _add_tools(b, t)
        _add_probes(b, t)
        _add_rules(b, t)


def _seed(conn, rng, t: Target) -> None:
    stock, moves = _tables(t)
    born = dict(conn.execute(f"SELECT id, created_at FROM {t.table} ORDER BY id LIMIT 300"))
    ids = list(born)
    items, ledger = [], []
    for n, target_id in enumerate(ids):
        level = rng.choice((5, 10, 10, 20, 25))
        on_hand = rng.randint(0, level) if n % 7 == 0 else rng.randint(level + 1, 240)
        received = past_stamp(rng, 41, 120, born[target_id])
        updated = past_stamp(rng, 1, 40, received)
        items.append((f"stk_{n + 1:06d}", target_id, on_hand, level, level * rng.choice((2, 3, 4)),
                      rng.choice(_LOCATIONS), updated))
        if rng.random() < 0.3:
            sold = rng.randint(1, 40)
            ledger.append((target_id, on_hand + sold, "received", on_hand + sold, received))
            ledger.append((target_id, -sold, "sold", on_hand, updated))
    conn.executemany(f"INSERT INTO {stock} VALUES (?, ?, ?, ?, ?, ?, ?)", items)
    conn.executemany(f"INSERT INTO {moves} VALUES (?, ?, ?, ?, ?, ?)",
                     [(f"mov_{i + 1:06d}", *m) for i, m in enumerate(ledger)])


def _stock_schema(t: Target) -> dict[str, Any]:
    return s.obj({"id": s.string("The stock record id."), t.key: s.string(),
                  "on_hand": s.integer("Units on hand.", minimum=0),
                  "reorder_level": s.integer("Reorder when on hand falls to this.", minimum=0),
                  "reorder_quantity": s.integer("Units to order when reordering.", minimum=1),
                  "location": s.string(), "updated_at": s.string(),
                  "below_reorder": s.boolean("On hand is at or below the reorder level.")})


def _out(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "below_reorder": row["on_hand"] <= row["reorder_level"]}


def _stock(ctx: ToolContext, t: Target, target_id: str) -> dict[str, Any]:
    t.require(ctx, target_id)
    found = ctx.one(f"SELECT * FROM {_tables(t)[0]} WHERE {t.key} = ?", (target_id,))
    if found is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"{t.noun} {target_id} is not stocked",
                        kind="stock", id=target_id)
    return found


def _add_tools(b: EnvBuilder, t: Target) -> None:
    stock, moves = _tables(t)

    def get_stock(ctx: ToolContext, **key: str) -> dict[str, Any]:
        return {"stock": _out(_stock(ctx, t, key[t.key]))}

    b.tools.tool(name="get_stock", read_only=True,
                 description=f"Get the stock of {t.a_noun}: units on hand, reorder level and "
                             "whether it is due for reordering.",
                 input=s.obj({t.key: t.key_schema()}),
                 output=s.obj({"stock": _stock_schema(t)}))(get_stock)

    def adjust_stock(ctx: ToolContext, delta: int, reason: str, **key: str) -> dict[str, Any]:
        found = _stock(ctx, t, key[t.key])
        if delta == 0:
            raise ToolError(ErrorCode.VALIDATION_ERROR, "delta may not be zero")
        if (reason in INBOUND and delta < 0) or (reason in OUTBOUND and delta > 0):
            raise ToolError(ErrorCode.VALIDATION_ERROR, f"a {reason.replace('_', ' ')} movement "
                            f"must {'add' if reason in INBOUND else 'remove'} units")
        balance = found["on_hand"] + delta
        if balance < 0:
            raise ToolError(ErrorCode.CONFLICT, f"only {found['on_hand']} units of {t.noun} "
                            f"{key[t.key]} are on hand; cannot remove {-delta}",
                            on_hand=found["on_hand"])
        now = ctx.clock.iso()
        ctx.update(stock, found["id"], {"on_hand": balance, "updated_at": now})
        move = {"id": ctx.ids.new("mov"), t.key: key[t.key], "delta": delta, "reason": reason,
                "balance_after": balance, "created_at": now}
        ctx.insert(moves, move)
        b.mutated(ctx, moves, move["id"], "create")
        return {"stock": _out({**found, "on_hand": balance, "updated_at": now}),
                "movement": move}

    b.tools.tool(
        name="adjust_stock",
        description=f"Add or remove units of {t.a_noun} (positive delta adds). Received and "
                    "returned goods add, sold, damaged and transferred-out goods remove; stock "
                    "never goes below zero.",
        input=s.obj({t.key: t.key_schema(),
                     "delta": s.integer("Units to add (positive) or remove (negative), not 0.",
                                        minimum=-100_000, maximum=100_000),
                     "reason": s.enum(REASONS, "Why the stock changes.")}),
        output=s.obj({"stock": _stock_schema(t), "movement": s.obj({
            "id": s.string("The movement id."), t.key: s.string(), "delta": s.integer(),
            "reason": s.enum(REASONS), "balance_after": s.integer(minimum=0),
            "created_at": s.string()})}))(adjust_stock)

    def list_low_stock(ctx: ToolContext, limit: int = 20,
                       cursor: str | None = None) -> dict[str, Any]:
        return page(ctx, select=stock, where=["on_hand <= reorder_level"], params=[],
                    order="on_hand - reorder_level, id", limit=limit, cursor=cursor,
                    key="items", out=_out)

    b.tools.tool(name="list_low_stock", read_only=True,
                 description=f"List the {t.plural} at or below their "
                             "reorder level, the furthest below first, paged.",
                 input=s.obj(paging_props(), required=[]),
                 output=s.page_of(_stock_schema(t), "items"))(list_low_stock)

    def set_reorder_level(ctx: ToolContext, reorder_level: int,
                          reorder_quantity: int | None = None, **key: str) -> dict[str, Any]:
        found = _stock(ctx, t, key[t.key])
        changes = {"reorder_level": reorder_level, "updated_at": ctx.clock.iso()}
        if reorder_quantity is not None:
            changes["reorder_quantity"] = reorder_quantity
        ctx.update(stock, found["id"], changes)
        b.mutated(ctx, stock, found["id"], "update")
        return {"stock": _out({**found, **changes})}

    b.tools.tool(name="set_reorder_level", idempotent=True,
                 description=f"Set the reorder level (and optionally the reorder quantity) of "
                             f"{t.a_noun}'s stock.",
                 input=s.obj({t.key: t.key_schema(),
                              "reorder_level": s.integer("Units.", minimum=0, maximum=100_000),
                              "reorder_quantity": s.integer("Units.", minimum=1,
                                                            maximum=100_000)},
                             required=[t.key, "reorder_level"]),
                 output=s.obj({"stock": _stock_schema(t)}))(set_reorder_level)


def _add_probes(b: EnvBuilder, t: Target) -> None:
    stock = _tables(t)[0]

    def stocked(db):
        return rows(db, f"SELECT * FROM {stock} WHERE on_hand > 0 ORDER BY id LIMIT 3")

    missing = [{t.key: t.missing}]
    b.probes["get_stock"] = Probe(lambda db: [{t.key: r[t.key]} for r in stocked(db)],
                                  lambda db: missing, "NOT_FOUND")
    b.probes["adjust_stock"] = Probe(
        lambda db: [{t.key: r[t.key], "delta": -1, "reason": "sold"} for r in stocked(db)],
        lambda db: [{**m, "delta": 5, "reason": "received"} for m in missing], "NOT_FOUND",
        changes=stock)
    b.probes["list_low_stock"] = Probe(lambda db: [{}], lambda db: [{"cursor": "x"}],
                                       "VALIDATION_ERROR")
    b.probes["set_reorder_level"] = Probe(
        lambda db: [{t.key: r[t.key], "reorder_level": r["reorder_level"] + 5}
                    for r in stocked(db)],
        lambda db: [{**m, "reorder_level": 5} for m in missing], "NOT_FOUND", changes=stock)


def _add_rules(b: EnvBuilder, t: Target) -> None:
    stock = _tables(t)[0]

    def overdraw(db):
        return [("adjust_stock", {t.key: r[t.key], "delta": -(r["on_hand"] + 1),
                                  "reason": "sold"})
                for r in rows(db, f"SELECT * FROM {stock} ORDER BY on_hand, id LIMIT 3")]

    b.add_rule(Rule("stock-never-negative", f"The units on hand of {t.a_noun} never go below "
                    "zero.", ("adjust_stock",), "CONFLICT"), overdraw)

    def wrong_way(db):
        return [("adjust_stock", {t.key: r[t.key], "delta": 3, "reason": "sold"})
                for r in rows(db, f"SELECT * FROM {stock} ORDER BY id LIMIT 2")]

    b.add_rule(Rule("stock-move-direction", "Received and returned goods add units; sold, "
                    "damaged and transferred-out goods remove them.", ("adjust_stock",),
                    "VALIDATION_ERROR"), wrong_way)

"""Sharing: who can see or edit a target row. Each row has one owner; only the owner shares."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError
from agentworld.servers import schema as s
from agentworld.servers.manifest import Rule

from ..builder import EnvBuilder, Probe
from ._base import (
    Target,
    created_of,
    free_names,
    group_peers,
    past_stamp,
    person_for,
    rows,
    seed_people,
    target,
)

__all__ = ["Sharing"]

_TOOLS = ("share_item", "revoke_share", "list_shares")
ROLES = ("owner", "editor", "viewer")


def _table(t: Target) -> str:
    return f"{t.name}_shares"


class Sharing:
    name = "sharing"
    sources: frozenset[str] = frozenset()

    def applies(self, archetype) -> bool:
        return free_names(archetype, _TOOLS, ("{t}_shares",))

    def extend_schema(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        t = target(b.archetype, tables)
        grantee = t.person_arg("grantee")
        b.schema.append(
            f"CREATE TABLE {_table(t)} (\n"
            f"    id TEXT PRIMARY KEY,\n"
            f"    {t.key} TEXT NOT NULL REFERENCES {t.table}(id),\n"
            f"    {t.person_column('grantee')},\n"
            f"    role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')),\n"
            f"    created_at TEXT NOT NULL,\n"
            f"    UNIQUE ({t.key}, {grantee})\n);\n"
            f"CREATE UNIQUE INDEX ux_{_table(t)}_owner ON {_table(t)}({t.key}) "
            f"WHERE role = 'owner';")

    def extend(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        t = target(b.archetype, tables)
        b.seeders.append(lambda conn, rng: _seed(conn, rng, t))
        b.on_mutation.append(lambda ctx, table, row_id, action:
                             _owner_on_create(ctx, t, table, row_id, action))
        _add_tools(b, t)
        _add_probes(b, t)
        _add_rules(b, t)


def _seed(conn, rng, t: Target) -> None:
    people = seed_people(conn, t, rng, 60)
    if not people:
        return
    owner = t.owner_field
    columns = "id, created_at" + (f", {owner}" if owner else "")
    targets = rows(conn, f"SELECT {columns} FROM {t.table} ORDER BY id")
    out, bornp, peers = [], created_of(conn, t), group_peers(conn, t)
    for r in targets:
        born = r["created_at"]
        group = peers(r["id"])
        mine = r[owner] if owner and r[owner] else person_for(rng, people, group)
        out.append((r["id"], mine, "owner", past_stamp(rng, 30, 300,
                                                      max(born, bornp.get(mine, "")))))
        if rng.random() < 0.3:
            others = [p for p in people if p != mine and (group is None or p in group)]
            for other in rng.sample(others, min(len(others), rng.randint(1, 2))):
                out.append((r["id"], other, rng.choice(("editor", "viewer", "viewer")),
                            past_stamp(rng, 1, 29, max(born, bornp.get(other, "")))))
    conn.executemany(f"INSERT INTO {_table(t)} VALUES (?, ?, ?, ?, ?)",
                     [(f"shr_{i + 1:06d}", *row) for i, row in enumerate(out)])


def _owner_on_create(ctx, t: Target, table: str, row_id: str, action: str) -> None:
    """A new target row is owned by its person (e.g. a new reservation by its guest)."""
    if table != t.table or action != "create" or not t.owner_field:
        return
    owner = ctx.scalar(f"SELECT {t.owner_field} FROM {t.table} WHERE id = ?", (row_id,))
    if owner:
        ctx.insert(_table(t), {"id": ctx.ids.new("shr"), t.key: row_id,
                               t.person_arg("grantee"): owner, "role": "owner",
                               "created_at": ctx.clock.iso()})


def _share_schema(t: Target) -> dict[str, Any]:
    grantee = t.person_arg("grantee")
    return s.obj({"id": s.string("The share id."), t.key: s.string(),
                  grantee: t.person_out("grantee"), "role": s.enum(ROLES),
                  "created_at": s.string()})


def _owner(ctx: ToolContext, t: Target, target_id: str) -> str | None:
    return ctx.scalar(f"SELECT {t.person_arg('grantee')} FROM {_table(t)} WHERE {t.key} = ? "
                      "AND role = 'owner'", (target_id,))


def _must_own(ctx: ToolContext, t: Target, target_id: str, acting: str) -> None:
    if _owner(ctx, t, target_id) != acting:
        raise ToolError(ErrorCode.FORBIDDEN, f"only the owner of {t.noun} {target_id} can "
                        "change who it is shared with")


def _add_tools(b: EnvBuilder, t: Target) -> None:
    table, grantee, acting = _table(t), t.person_arg("grantee"), t.person_arg("requested_by")

    def share_item(ctx: ToolContext, role: str, **who: str) -> dict[str, Any]:
        row = t.require(ctx, who[t.key])
        t.check_person(ctx, who[grantee])
        _must_own(ctx, t, row["id"], who[acting])
        current = ctx.one(f"SELECT role FROM {table} WHERE {t.key} = ? AND {grantee} = ?",
                          (row["id"], who[grantee]))
        if current:
            raise ToolError(ErrorCode.CONFLICT, f"{who[grantee]} already has {current['role']} "
                            f"access to {t.noun} {row['id']}", role=current["role"])
        new = {"id": ctx.ids.new("shr"), t.key: row["id"], grantee: who[grantee], "role": role,
               "created_at": ctx.clock.iso()}
        ctx.insert(table, new)
        b.mutated(ctx, table, new["id"], "create")
        return {"share": new}

    b.tools.tool(
        name="share_item",
        description=f"Share {t.a_noun} with someone as editor or viewer. Only the {t.noun}'s "
                    "owner can share it, and someone who already has access cannot be added "
                    "again.",
        input=s.obj({t.key: t.key_schema(), grantee: t.person_schema("receives access"),
                     "role": s.enum(ROLES[1:], "The access to grant."),
                     acting: t.person_schema(f"makes the change (must own the {t.noun})")}),
        output=s.obj({"share": _share_schema(t)}))(share_item)

    def revoke_share(ctx: ToolContext, **who: str) -> dict[str, Any]:
        row = t.require(ctx, who[t.key])
        _must_own(ctx, t, row["id"], who[acting])
        share = ctx.one(f"SELECT * FROM {table} WHERE {t.key} = ? AND {grantee} = ?",
                        (row["id"], who[grantee]))
        if share is None:
            raise ToolError(ErrorCode.NOT_FOUND, f"{t.noun} {row['id']} is not shared with "
                            f"{who[grantee]}")
        if share["role"] == "owner":
            raise ToolError(ErrorCode.PRECONDITION_FAILED, f"the owner's access to {t.noun} "
                            f"{row['id']} cannot be revoked")
        ctx.db.execute(f"DELETE FROM {table} WHERE id = ?", (share["id"],))
        b.mutated(ctx, table, share["id"], "delete")
        return {"revoked": share["id"], grantee: who[grantee], "role": share["role"]}

    b.tools.tool(
        name="revoke_share", destructive=True,
        description=f"Take away someone's access to {t.a_noun}. Only the owner can, and the "
                    "owner's own access cannot be revoked.",
        input=s.obj({t.key: t.key_schema(), grantee: t.person_schema("loses access"),
                     acting: t.person_schema(f"makes the change (must own the {t.noun})")}),
        output=s.obj({"revoked": s.string("The share id."), grantee: t.person_out("grantee"),
                      "role": s.enum(ROLES[1:])}))(revoke_share)

    def list_shares(ctx: ToolContext, **ref: str) -> dict[str, Any]:
        row = t.require(ctx, ref[t.key])
        shares = ctx.all(f"SELECT * FROM {table} WHERE {t.key} = ? ORDER BY role = 'owner' DESC, "
                         "created_at, id", (row["id"],))
        return {t.key: row["id"], "owner": _owner(ctx, t, row["id"]), "shares": shares}

    b.tools.tool(
        name="list_shares", read_only=True,
        description=f"Who has access to {t.a_noun}: its owner first, then editors and viewers.",
        input=s.obj({t.key: t.key_schema()}),
        output=s.obj({t.key: s.string(), "owner": s.nullable(t.person_out("grantee")),
                      "shares": s.array(_share_schema(t))}))(list_shares)


def _add_probes(b: EnvBuilder, t: Target) -> None:
    table, grantee, acting = _table(t), t.person_arg("grantee"), t.person_arg("requested_by")

    def granted(db):
        return rows(db, f"SELECT g.{t.key}, g.{grantee} AS grantee, o.{grantee} AS owner "
                        f"FROM {table} g JOIN {table} o ON o.{t.key} = g.{t.key} AND "
                        f"o.role = 'owner' WHERE g.role <> 'owner' ORDER BY g.id LIMIT 3")

    def share_ok(db):
        owned = rows(db, f"SELECT {t.key}, {grantee} AS owner FROM {table} WHERE role = 'owner' "
                         "ORDER BY id LIMIT 3")
        people = [r["grantee"] for r in rows(
            db, f"SELECT DISTINCT {grantee} AS grantee FROM {table} ORDER BY 1 LIMIT 12")]
        # Only people who hold no share of that item yet: sharing again is refused.
        holders = {(r[t.key], r["grantee"]) for r in rows(
            db, f"SELECT {t.key}, {grantee} AS grantee FROM {table}")}
        return [{t.key: r[t.key], grantee: p, "role": "viewer", acting: r["owner"]}
                for r in owned for p in people if (r[t.key], p) not in holders][:3]

    b.probes["share_item"] = Probe(
        share_ok, lambda db: [{**a, t.key: t.missing} for a in share_ok(db)], "NOT_FOUND",
        changes=table)
    b.probes["revoke_share"] = Probe(
        lambda db: [{t.key: r[t.key], grantee: r["grantee"], acting: r["owner"]}
                    for r in granted(db)],
        lambda db: [{t.key: t.missing, grantee: r["grantee"], acting: r["owner"]}
                    for r in granted(db)], "NOT_FOUND", changes=table)
    b.probes["list_shares"] = Probe(lambda db: [{t.key: r[t.key]} for r in granted(db)],
                                    lambda db: [{t.key: t.missing}], "NOT_FOUND")


def _add_rules(b: EnvBuilder, t: Target) -> None:
    table, grantee, acting = _table(t), t.person_arg("grantee"), t.person_arg("requested_by")

    def not_owner(db):
        some = rows(db, f"SELECT g.{t.key}, g.{grantee} AS grantee, o.{grantee} AS owner "
                        f"FROM {table} g JOIN {table} o ON o.{t.key} = g.{t.key} AND "
                        f"o.role = 'owner' WHERE g.role <> 'owner' ORDER BY g.id LIMIT 3")
        calls = []
        for r in some:
            # The grantee, not the owner, tries to pass access on, or to revoke the owner's.
            calls.append(("revoke_share", {t.key: r[t.key], grantee: r["owner"],
                                           acting: r["grantee"]}))
            calls.append(("share_item", {t.key: r[t.key], grantee: r["owner"], "role": "editor",
                                         acting: r["grantee"]}))
        return calls

    b.add_rule(Rule("share-owner-only", f"Only {t.a_noun}'s owner can share it or revoke "
                    "access to it.", ("share_item", "revoke_share"), "FORBIDDEN"), not_owner)

    def revoke_owner(db):
        owned = rows(db, f"SELECT {t.key}, {grantee} FROM {table} WHERE role = 'owner' "
                         "ORDER BY id LIMIT 3")
        return [("revoke_share", {t.key: r[t.key], grantee: r[grantee], acting: r[grantee]})
                for r in owned]

    b.add_rule(Rule("share-owner-kept", f"The owner's access to {t.a_noun} cannot be revoked.",
                    ("revoke_share",), "PRECONDITION_FAILED"), revoke_owner)

    def again(db):
        some = rows(db, f"SELECT g.{t.key}, g.{grantee} AS grantee, o.{grantee} AS owner "
                        f"FROM {table} g JOIN {table} o ON o.{t.key} = g.{t.key} AND "
                        f"o.role = 'owner' WHERE g.role <> 'owner' ORDER BY g.id LIMIT 3")
        return [("share_item", {t.key: r[t.key], grantee: r["grantee"], "role": "editor",
                                acting: r["owner"]}) for r in some]

    b.add_rule(Rule("share-once", f"A person holds at most one kind of access to {t.a_noun}.",
                    ("share_item",), "CONFLICT"), again)

"""Page tools: search, read, create, rename, move, archive and restore pages."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolError
from agentworld.servers import schema as s

from .access import Access
from .common import ACTOR, CURSOR, LEVEL, LIMIT, PAGE, escape_like, page_out, page_slice, tools
from .props import PROPERTY_OUT, row_properties

TITLE = s.string("Page title.", max_length=2000, min_length=1)
ICON = s.string("An emoji such as 📄; an empty string removes the icon.", max_length=16)

SEARCH_HIT = s.obj({
    "id": s.string(), "object": s.enum(["page", "database"]), "title": s.string(max_length=2000),
    "icon": s.nullable(s.string()), "parent_type": s.enum(["workspace", "page", "database"]),
    "parent_id": s.nullable(s.string()), "in_trash": s.boolean(), "last_edited_at": s.string()})
CRUMB = s.obj({"id": s.string(), "object": s.enum(["page", "database"]),
               "title": s.string(max_length=2000)})
CHILD = s.obj({"id": s.string(), "object": s.enum(["page", "database"]),
               "title": s.string(max_length=2000), "in_trash": s.boolean()})
PAGE_RESULT = s.obj({"page": PAGE})


def _page_row(ctx, page_id: str) -> dict[str, Any]:
    return ctx.one("SELECT * FROM pages WHERE id = ?", (page_id,))


def _result(ctx, acc: Access, page_id: str) -> dict[str, Any]:
    acc.pages[page_id] = ctx.one(
        "SELECT id, title, parent_type, parent_page_id, parent_database_id, member_access, "
        "archived FROM pages WHERE id = ?", (page_id,))
    return {"page": page_out(_page_row(ctx, page_id), acc.in_trash(page_id))}


def _touch(ctx, acc: Access, page_id: str, values: dict[str, Any] | None = None) -> None:
    stamp = {"last_edited_by": acc.actor["id"], "last_edited_at": ctx.clock.iso()}
    ctx.update("pages", page_id, {**(values or {}), **stamp})


@tools.tool(
    description="Search pages, database rows and databases whose title contains `query` "
                "(case-insensitive), among those shared with the actor. Most recently edited "
                "first. Archived items are left out unless include_archived is true.",
    read_only=True,
    input=s.obj({"actor_id": ACTOR, "query": s.string("Title text to look for.", max_length=200),
                 "object": s.enum(["any", "page", "database"], "Limit to pages or databases."),
                 "include_archived": s.boolean(), "limit": LIMIT, "cursor": CURSOR},
                required=["actor_id"]),
    output=s.page_of(SEARCH_HIT, "results"))
def search(ctx, actor_id, query="", object="any", include_archived=False, limit=None,
           cursor=None):
    acc = Access(ctx, actor_id)
    pattern = f"%{escape_like(query)}%"
    hits: list[dict[str, Any]] = []
    if object in ("any", "page"):
        for row in ctx.all("SELECT * FROM pages WHERE title LIKE ? ESCAPE '\\'", (pattern,)):
            if acc.can(row["id"], "can_view"):
                hit = page_out(row, acc.in_trash(row["id"]))
                hits.append({k: hit[k] for k in SEARCH_HIT["properties"]})
    if object in ("any", "database"):
        for row in ctx.all("SELECT * FROM databases WHERE title LIKE ? ESCAPE '\\'", (pattern,)):
            if acc.can(row["parent_page_id"], "can_view"):
                hits.append({"id": row["id"], "object": "database", "title": row["title"],
                             "icon": row["icon"], "parent_type": "page",
                             "parent_id": row["parent_page_id"],
                             "in_trash": acc.in_trash(row["parent_page_id"]),
                             "last_edited_at": row["last_edited_at"]})
    if not include_archived:
        hits = [h for h in hits if not h["in_trash"]]
    hits.sort(key=lambda h: (h["last_edited_at"], h["id"]), reverse=True)
    return page_slice(hits, "results", limit, cursor)


@tools.tool(
    description="Get a page: its metadata, the actor's access level, the breadcrumb from the "
                "workspace root, its child pages and child databases, and (for a database row) "
                "its property values. Block content comes from get_block_children.",
    read_only=True,
    input=s.obj({"actor_id": ACTOR, "page_id": s.identifier()}),
    output=s.obj({"page": PAGE, "access": LEVEL, "breadcrumb": s.array(CRUMB, max_items=50),
                  "children": s.array(CHILD, max_items=1000),
                  "properties": s.nullable(PROPERTY_OUT)}))
def get_page(ctx, actor_id, page_id):
    acc = Access(ctx, actor_id)
    acc.page(page_id)
    row = _page_row(ctx, page_id)
    crumbs = []
    for node in reversed(acc.chain(page_id)[1:]):
        crumbs.append({"id": node, "object": "page", "title": acc.pages[node]["title"]})
    if row["parent_type"] == "database":
        database = acc.databases[row["parent_database_id"]]
        crumbs.append({"id": database["id"], "object": "database", "title": database["title"]})
    children = [{"id": p["id"], "object": "page", "title": p["title"],
                 "in_trash": acc.in_trash(p["id"])}
                for p in ctx.all("SELECT id, title FROM pages WHERE parent_page_id = ? "
                                 "ORDER BY created_at, id", (page_id,))
                if acc.can(p["id"], "can_view")]
    children += [{"id": d["id"], "object": "database", "title": d["title"],
                  "in_trash": acc.in_trash(page_id)}
                 for d in ctx.all("SELECT id, title FROM databases WHERE parent_page_id = ? "
                                  "ORDER BY created_at, id", (page_id,))]
    properties = row_properties(ctx, row) if row["parent_type"] == "database" else None
    return {"page": page_out(row, acc.in_trash(page_id)), "access": acc.level(page_id),
            "breadcrumb": crumbs, "children": children, "properties": properties}


@tools.tool(
    description="Create an empty page under a parent page (needs can_edit there; the parent must "
                "not be archived), or at the workspace root when parent_page_id is omitted "
                "(workspace members only, not guests; teamspace_id optional). The creator gets "
                "full_access on the new page. Add content with append_blocks.",
    input=s.obj({"actor_id": ACTOR, "title": TITLE, "parent_page_id": s.identifier(),
                 "icon": ICON, "teamspace_id": s.identifier("Top-level pages only.")},
                required=["actor_id", "title"]),
    output=PAGE_RESULT)
def create_page(ctx, actor_id, title, parent_page_id=None, icon=None, teamspace_id=None):
    acc = Access(ctx, actor_id)
    if parent_page_id is None:
        _require_root_access(acc, "create top-level pages")
        if teamspace_id is not None:
            ctx.require("teamspaces", teamspace_id, kind="teamspace")
        parent = {"parent_type": "workspace", "parent_page_id": None, "teamspace_id": teamspace_id}
    else:
        if teamspace_id is not None:
            raise ToolError(ErrorCode.VALIDATION_ERROR, "teamspace_id applies only to top-level "
                            "pages; a subpage belongs to its parent's teamspace")
        acc.editable(parent_page_id)
        parent = {"parent_type": "page", "parent_page_id": parent_page_id,
                  "teamspace_id": _page_row(ctx, parent_page_id)["teamspace_id"]}
    page_id, now = ctx.ids.new("pg"), ctx.clock.iso()
    ctx.insert("pages", {"id": page_id, "title": title, "icon": icon or None, **parent,
                         "parent_database_id": None, "member_access": None, "archived": 0,
                         "created_by": actor_id, "created_at": now, "last_edited_by": actor_id,
                         "last_edited_at": now})
    ctx.insert("page_permissions", {"page_id": page_id, "member_id": actor_id,
                                    "level": "full_access", "granted_by": actor_id,
                                    "granted_at": now})
    return _result(ctx, acc, page_id)


def _require_root_access(acc: Access, what: str) -> None:
    if acc.actor["role"] == "guest":
        raise ToolError(ErrorCode.FORBIDDEN, f"guests cannot {what}; ask a workspace member",
                        role="guest")


@tools.tool(
    description="Rename a page or change its icon (needs can_edit; archived pages must be "
                "restored first). For a database row the title is its title property.",
    input=s.obj({"actor_id": ACTOR, "page_id": s.identifier(), "title": TITLE, "icon": ICON},
                required=["actor_id", "page_id"]),
    output=PAGE_RESULT, idempotent=True)
def update_page(ctx, actor_id, page_id, title=None, icon=None):
    if title is None and icon is None:
        raise ToolError(ErrorCode.VALIDATION_ERROR, "give a new title or icon")
    acc = Access(ctx, actor_id)
    acc.editable(page_id)
    values: dict[str, Any] = {}
    if title is not None:
        values["title"] = title
    if icon is not None:
        values["icon"] = icon or None
    _touch(ctx, acc, page_id, values)
    return _result(ctx, acc, page_id)


@tools.tool(
    description="Move a page (with its subpages) under another page, or to the workspace root "
                "when new_parent_page_id is omitted (members only). Needs can_edit on the page "
                "and on the new parent; neither may be archived. A page cannot move under itself "
                "or its own descendants, and database rows cannot be moved out of their database.",
    input=s.obj({"actor_id": ACTOR, "page_id": s.identifier(),
                 "new_parent_page_id": s.identifier()}, required=["actor_id", "page_id"]),
    output=PAGE_RESULT)
def move_page(ctx, actor_id, page_id, new_parent_page_id=None):
    acc = Access(ctx, actor_id)
    page = acc.editable(page_id)
    if page["parent_type"] == "database":
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"page {page_id!r} is a row of a database "
                        "and cannot be moved out of it")
    if new_parent_page_id is None:
        _require_root_access(acc, "move pages to the workspace root")
        _touch(ctx, acc, page_id, {"parent_type": "workspace", "parent_page_id": None})
        return _result(ctx, acc, page_id)
    acc.editable(new_parent_page_id)
    if page_id in acc.chain(new_parent_page_id):
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"cannot move page {page_id!r} under "
                        f"{new_parent_page_id!r}: that is the page itself or one of its "
                        "descendants", page_id=page_id, new_parent_page_id=new_parent_page_id)
    teamspace = _page_row(ctx, new_parent_page_id)["teamspace_id"]
    _touch(ctx, acc, page_id, {"parent_type": "page", "parent_page_id": new_parent_page_id})
    # The moved subtree (rows of its databases included) joins the new parent's teamspace.
    subtree = [p for p in acc.pages if p == page_id or page_id in acc.chain(p)[1:]]
    ctx.executemany("UPDATE pages SET teamspace_id = ? WHERE id = ?",
                    [(teamspace, p) for p in subtree])
    return _result(ctx, acc, page_id)


@tools.tool(
    description="Archive (move to the trash) a page or database row, needs can_edit. Its "
                "subpages go to the trash with it. Archived pages stay readable but cannot be "
                "edited or commented on until restored.",
    input=s.obj({"actor_id": ACTOR, "page_id": s.identifier()}),
    output=s.obj({"page": PAGE, "pages_in_trash": s.integer(
        "The page and all its descendants now in the trash.", minimum=1)}),
    destructive=True)
def archive_page(ctx, actor_id, page_id):
    acc = Access(ctx, actor_id)
    acc.page(page_id, "can_edit")
    if acc.in_trash(page_id):
        raise ToolError(ErrorCode.CONFLICT, f"page {page_id!r} is already in the trash")
    _touch(ctx, acc, page_id, {"archived": 1})
    result = _result(ctx, acc, page_id)
    swept = sum(1 for p in acc.pages if page_id in acc.chain(p))
    return {**result, "pages_in_trash": swept}


@tools.tool(
    description="Restore an archived page or row from the trash, needs can_edit. Only the page "
                "that was archived itself can be restored, and only while none of its ancestors "
                "is archived (restore the ancestor first).",
    input=s.obj({"actor_id": ACTOR, "page_id": s.identifier()}), output=PAGE_RESULT)
def restore_page(ctx, actor_id, page_id):
    acc = Access(ctx, actor_id)
    page = acc.page(page_id, "can_edit")
    if not page["archived"]:
        raise ToolError(ErrorCode.CONFLICT, f"page {page_id!r} is not archived itself")
    for node in acc.chain(page_id)[1:]:
        if acc.pages[node]["archived"]:
            raise ToolError(ErrorCode.PRECONDITION_FAILED,
                            f"page {page_id!r} sits under archived page {node!r}; restore "
                            "that page first", archived_page_id=node)
    _touch(ctx, acc, page_id, {"archived": 0})
    return _result(ctx, acc, page_id)

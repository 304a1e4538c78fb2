"""Collaboration tools: members, comment threads, and sharing pages."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolError, not_found
from agentworld.servers import schema as s

from .access import LEVELS, Access
from .common import ACTOR, CURSOR, LEVEL, LIMIT, escape_like, page_slice, tools

ROLE = s.enum(["owner", "member", "guest"])
MEMBER = s.obj({"id": s.string(), "name": s.string(), "email": s.string(), "role": ROLE,
                "job_title": s.string(), "joined_at": s.string()})
COMMENT = s.obj({"id": s.string(), "discussion_id": s.string(), "author_id": s.string(),
                 "author_name": s.string(), "body": s.string(max_length=4000),
                 "created_at": s.string()})
DISCUSSION = s.obj({"id": s.string(), "page_id": s.string(), "block_id": s.nullable(s.string()),
                    "resolved": s.boolean(), "resolved_by": s.nullable(s.string()),
                    "resolved_at": s.nullable(s.string()), "created_at": s.string(),
                    "comments": s.array(COMMENT, max_items=500)})
SOURCE = s.enum(["owner", "explicit", "inherited", "page_default", "workspace"],
                "owner: workspace owner; explicit: granted on this page; inherited: granted on "
                "an ancestor; page_default: a page's setting for all members; workspace: the "
                "workspace default.")
ENTRY = s.obj({"member_id": s.string(), "name": s.string(), "role": ROLE, "level": LEVEL,
               "source": SOURCE, "source_page_id": s.nullable(s.string())})


@tools.tool(
    description="List workspace members and guests, sorted by name; filter by role or by text "
                "in the name or email. Guests cannot list the workspace's members.",
    read_only=True,
    input=s.obj({"actor_id": ACTOR, "role": ROLE, "query": s.string(max_length=100),
                 "limit": LIMIT, "cursor": CURSOR}, required=["actor_id"]),
    output=s.page_of(MEMBER, "members"))
def list_members(ctx, actor_id, role=None, query=None, limit=None, cursor=None):
    actor = ctx.require("members", actor_id, kind="member")
    if actor["role"] == "guest":
        raise ToolError(ErrorCode.FORBIDDEN, "guests cannot list workspace members")
    sql, params = "SELECT * FROM members WHERE 1 = 1", []
    if role is not None:
        sql += " AND role = ?"
        params.append(role)
    if query:
        sql += " AND (name LIKE ? ESCAPE '\\' OR email LIKE ? ESCAPE '\\')"
        params += [f"%{escape_like(query)}%"] * 2
    return page_slice(ctx.all(sql + " ORDER BY name, id", params), "members", limit, cursor)


def _comment_out(ctx, comment_id: str) -> dict[str, Any]:
    return ctx.one("SELECT c.id, c.discussion_id, c.author_id, m.name AS author_name, c.body, "
                   "c.created_at FROM comments c JOIN members m ON m.id = c.author_id "
                   "WHERE c.id = ?", (comment_id,))


def _discussion(ctx, discussion_id: str) -> dict[str, Any]:
    return ctx.require("discussions", discussion_id, kind="discussion")


@tools.tool(
    description="Comment on a page. Give exactly one of: page_id (starts a page-level thread), "
                "block_id (starts a thread on that block), or discussion_id (replies in an "
                "existing thread; resolved threads take no replies until reopened). Needs "
                "can_comment; archived pages cannot be commented on.",
    input=s.obj({"actor_id": ACTOR, "body": s.string(max_length=4000, min_length=1),
                 "page_id": s.identifier(), "block_id": s.identifier(),
                 "discussion_id": s.identifier()}, required=["actor_id", "body"]),
    output=s.obj({"comment": COMMENT}))
def add_comment(ctx, actor_id, body, page_id=None, block_id=None, discussion_id=None):
    if sum(x is not None for x in (page_id, block_id, discussion_id)) != 1:
        raise ToolError(ErrorCode.VALIDATION_ERROR,
                        "give exactly one of page_id, block_id or discussion_id")
    if not body.strip():
        raise ToolError(ErrorCode.VALIDATION_ERROR, "comment body is empty")
    acc = Access(ctx, actor_id)
    thread = _discussion(ctx, discussion_id) if discussion_id else None
    if block_id is not None:
        block = ctx.require("blocks", block_id, kind="block")
        page_id = block["page_id"]
    elif thread is not None:
        page_id, block_id = thread["page_id"], thread["block_id"]
    acc.page(page_id, "can_comment")
    acc.live(page_id)
    now = ctx.clock.iso()
    if thread is None:
        discussion_id = ctx.ids.new("dsc")
        ctx.insert("discussions", {"id": discussion_id, "page_id": page_id,
                                   "block_id": block_id, "resolved": 0, "resolved_by": None,
                                   "resolved_at": None, "created_at": now})
    elif thread["resolved"]:
        raise ToolError(ErrorCode.PRECONDITION_FAILED,
                        f"discussion {discussion_id!r} is resolved; reopen it with "
                        "resolve_comment(resolved=false) before replying")
    comment_id = ctx.ids.new("cmt")
    ctx.insert("comments", {"id": comment_id, "discussion_id": discussion_id,
                            "author_id": actor_id, "body": body, "created_at": now})
    return {"comment": _comment_out(ctx, comment_id)}


@tools.tool(
    description="List the comment threads of a page (or of one block of it), oldest first, "
                "each with its comments in order. Resolved threads are left out unless "
                "include_resolved is true. Needs can_view.",
    read_only=True,
    input=s.obj({"actor_id": ACTOR, "page_id": s.identifier(), "block_id": s.identifier(),
                 "include_resolved": s.boolean(), "limit": LIMIT, "cursor": CURSOR},
                required=["actor_id", "page_id"]),
    output=s.page_of(DISCUSSION, "discussions"))
def list_comments(ctx, actor_id, page_id, block_id=None, include_resolved=False, limit=None,
                  cursor=None):
    Access(ctx, actor_id).page(page_id)
    sql, params = "SELECT * FROM discussions WHERE page_id = ?", [page_id]
    if block_id is not None:
        if ctx.scalar("SELECT 1 FROM blocks WHERE id = ? AND page_id = ?",
                      (block_id, page_id)) is None:
            raise not_found("block", block_id)
        sql += " AND block_id = ?"
        params.append(block_id)
    if not include_resolved:
        sql += " AND resolved = 0"
    result = page_slice(ctx.all(sql + " ORDER BY created_at, id", params), "discussions",
                        limit, cursor)
    for thread in result["discussions"]:
        thread["resolved"] = bool(thread["resolved"])
        thread["comments"] = ctx.all(
            "SELECT c.id, c.discussion_id, c.author_id, m.name AS author_name, c.body, "
            "c.created_at FROM comments c JOIN members m ON m.id = c.author_id "
            "WHERE c.discussion_id = ? ORDER BY c.created_at, c.id", (thread["id"],))
    return result


@tools.tool(
    description="Resolve a comment thread (resolved=true, the default) or reopen a resolved "
                "one (resolved=false). Needs can_comment; the page must not be archived.",
    input=s.obj({"actor_id": ACTOR, "discussion_id": s.identifier(), "resolved": s.boolean()},
                required=["actor_id", "discussion_id"]),
    output=s.obj({"discussion_id": s.string(), "resolved": s.boolean(),
                  "resolved_by": s.nullable(s.string()), "resolved_at": s.nullable(s.string())}))
def resolve_comment(ctx, actor_id, discussion_id, resolved=True):
    acc = Access(ctx, actor_id)
    thread = _discussion(ctx, discussion_id)
    acc.page(thread["page_id"], "can_comment")
    acc.live(thread["page_id"])
    if bool(thread["resolved"]) == resolved:
        state = "resolved" if resolved else "open"
        raise ToolError(ErrorCode.CONFLICT, f"discussion {discussion_id!r} is already {state}")
    values = {"resolved": int(resolved), "resolved_by": actor_id if resolved else None,
              "resolved_at": ctx.clock.iso() if resolved else None}
    ctx.update("discussions", discussion_id, values)
    return {"discussion_id": discussion_id, **values, "resolved": resolved}


@tools.tool(
    description="Share a page with a member or guest at a level (full_access, can_edit, "
                "can_comment, can_view, or no_access to cut inherited access), or 'remove' their "
                "explicit grant so access is inherited again. Subpages inherit it unless they "
                "have their own grant. Only actors with full_access on the page can share, and "
                "the workspace owner always keeps full access.",
    input=s.obj({"actor_id": ACTOR, "page_id": s.identifier(), "member_id": s.identifier(),
                 "level": s.enum([*LEVELS, "remove"])}),
    output=s.obj({"page_id": s.string(), "member_id": s.string(),
                  "explicit_level": s.nullable(LEVEL), "effective_level": LEVEL,
                  "source": SOURCE}))
def share_page(ctx, actor_id, page_id, member_id, level):
    acc = Access(ctx, actor_id)
    acc.page(page_id, "full_access")
    target = ctx.require("members", member_id, kind="member")
    if target["role"] == "owner" and level != "full_access":
        raise ToolError(ErrorCode.FORBIDDEN, "the workspace owner always has full access; "
                        "their access to a page cannot be lowered or removed")
    existing = ctx.one("SELECT level FROM page_permissions WHERE page_id = ? AND member_id = ?",
                       (page_id, member_id))
    ctx.db.execute("DELETE FROM page_permissions WHERE page_id = ? AND member_id = ?",
                   (page_id, member_id))
    if level == "remove":
        if existing is None:
            raise ToolError(ErrorCode.CONFLICT,
                            f"member {member_id!r} has no explicit grant on page {page_id!r}")
    else:
        ctx.insert("page_permissions", {"page_id": page_id, "member_id": member_id,
                                        "level": level, "granted_by": actor_id,
                                        "granted_at": ctx.clock.iso()})
    grants = acc.grants_of(member_id)
    effective, source, _ = acc.resolve(page_id, target["role"], grants)
    return {"page_id": page_id, "member_id": member_id,
            "explicit_level": None if level == "remove" else level,
            "effective_level": effective, "source": source}


@tools.tool(
    description="Who can access a page and why: each member or guest with access (or an "
                "explicit no_access), their level and where it comes from, plus the level a "
                "workspace member without any grant gets. Needs can_view.",
    read_only=True,
    input=s.obj({"actor_id": ACTOR, "page_id": s.identifier()}),
    output=s.obj({"page_id": s.string(), "member_default": LEVEL,
                  "entries": s.array(ENTRY, max_items=500)}))
def get_page_permissions(ctx, actor_id, page_id):
    acc = Access(ctx, actor_id)
    acc.page(page_id)
    chain = acc.chain(page_id)
    grants: dict[str, dict[str, str]] = {}
    for r in ctx.all(f"SELECT page_id, member_id, level FROM page_permissions WHERE page_id IN "
                     f"({', '.join('?' for _ in chain)})", chain):
        grants.setdefault(r["member_id"], {})[r["page_id"]] = r["level"]
    entries = []
    for member in ctx.all("SELECT id, name, role FROM members ORDER BY name, id"):
        level, source, where = acc.resolve(page_id, member["role"], grants.get(member["id"], {}))
        if level != "no_access" or source in ("explicit", "inherited"):
            entries.append({"member_id": member["id"], "name": member["name"],
                            "role": member["role"], "level": level, "source": source,
                            "source_page_id": where})
    return {"page_id": page_id, "member_default": acc.resolve(page_id, "member", {})[0],
            "entries": entries}

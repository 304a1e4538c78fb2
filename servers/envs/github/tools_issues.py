"""Issue tools: search, read, open, edit (title, body, state, assignees) and comment."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError
from agentworld.servers import schema as s

from ._common import (
    ACTOR,
    CURSOR,
    LIMIT,
    LOGIN,
    NUMBER,
    REPO,
    authorize,
    find_item,
    find_repo,
    has,
    like,
    paginate,
    tools,
    touch,
)
from ._pulls import sync_pull_state
from ._triage import check_milestone, replace_assignees, resolve_labels
from ._views import COMMENT, COMMENT_LIMIT, ISSUE, ISSUE_DETAIL, issue_view

TITLE = s.string("Title, 1-256 characters.", max_length=256, min_length=1)
BODY = s.text("Markdown body.")
ASSIGNEES = s.array(LOGIN, "Logins to assign (at most 10).", max_items=10)
SORTS = {"created": "i.created_at", "updated": "i.updated_at",
         "comments": "(SELECT COUNT(*) FROM comments c WHERE c.issue_id = i.id)"}


def _filters(query, repo, state, kind, label, assignee, author, milestone):
    where, params = [], []
    if repo is not None:
        where.append("i.repo_id = ?")
        params.append(repo["id"])
    if state != "all":
        where.append("i.state = ?")
        params.append(state)
    if kind != "all":
        where.append("i.kind = ?")
        params.append("pull" if kind == "pull_request" else "issue")
    for term in (query or "").split():
        where.append("(i.title LIKE ? ESCAPE '\\' OR i.body LIKE ? ESCAPE '\\')")
        params += [like(term), like(term)]
    if label is not None:
        where.append("EXISTS (SELECT 1 FROM issue_labels il JOIN labels l ON l.id = il.label_id "
                     "WHERE il.issue_id = i.id AND l.name = ?)")
        params.append(label)
    if assignee == "none":
        where.append("NOT EXISTS (SELECT 1 FROM issue_assignees a WHERE a.issue_id = i.id)")
    elif assignee is not None:
        where.append("EXISTS (SELECT 1 FROM issue_assignees a WHERE a.issue_id = i.id "
                     "AND a.login = ? COLLATE NOCASE)")
        params.append(assignee)
    if author is not None:
        where.append("i.author = ? COLLATE NOCASE")
        params.append(author)
    if milestone == "none":
        where.append("i.milestone_id IS NULL")
    elif milestone is not None:
        where.append("EXISTS (SELECT 1 FROM milestones m WHERE m.id = i.milestone_id "
                     "AND m.title = ? COLLATE NOCASE)")
        params.append(milestone)
    return where, params


@tools.tool(
    description="Search issues (and optionally pull requests) across all repositories or in "
                "one. Every word of `query` must appear in the title or body. Filters: state "
                "(default open), kind (default issue), label name (case-insensitive), assignee "
                "login or 'none', author, milestone title or 'none'. Sorted by created, updated "
                "or comments, newest/most first unless order is asc. Paged.",
    input=s.obj({
        "query": s.string(max_length=200), "repo": REPO,
        "state": s.enum(["open", "closed", "all"]),
        "kind": s.enum(["issue", "pull_request", "all"]), "label": s.string(max_length=50),
        "assignee": LOGIN, "author": LOGIN, "milestone": s.string(max_length=100),
        "sort": s.enum(list(SORTS)), "order": s.enum(["desc", "asc"]),
        "limit": LIMIT, "cursor": CURSOR,
    }, required=[]),
    output=s.page_of(ISSUE, "issues"), read_only=True)
def search_issues(ctx: ToolContext, query: str | None = None, repo: str | None = None,
                  state: str = "open", kind: str = "issue", label: str | None = None,
                  assignee: str | None = None, author: str | None = None,
                  milestone: str | None = None, sort: str = "created", order: str = "desc",
                  limit: int = 20, cursor: str | None = None) -> dict[str, Any]:
    scope = find_repo(ctx, repo) if repo is not None else None
    where, params = _filters(query, scope, state, kind, label, assignee, author, milestone)
    direction = "ASC" if order == "asc" else "DESC"
    sql = ("SELECT i.*, r.full_name FROM issues i JOIN repos r ON r.id = i.repo_id"
           + (" WHERE " + " AND ".join(where) if where else "")
           + f" ORDER BY {SORTS[sort]} {direction}, i.id {direction}")
    return paginate(ctx, sql, params, limit=limit, cursor=cursor, key="issues",
                    render=lambda row: issue_view(ctx, row, row["full_name"]))


def _detail(ctx: ToolContext, repo: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    item = ctx.one("SELECT * FROM issues WHERE id = ?", (item["id"],))
    out = issue_view(ctx, item, repo["full_name"])
    out["body"] = item["body"]
    out["closed_by"] = item["closed_by"]
    out["comment_list"] = ctx.all(
        "SELECT id, author, body, created_at FROM comments WHERE issue_id = ? ORDER BY id "
        "LIMIT ?", (item["id"], COMMENT_LIMIT))
    return out


@tools.tool(
    description="Get one issue by number with its body, labels, assignees, milestone and up to "
                f"{COMMENT_LIMIT} comments (oldest first). Pull request numbers work too (they "
                "share the sequence); use get_pull_request for reviews and checks.",
    input=s.obj({"repo": REPO, "number": NUMBER}), output=s.obj({"issue": ISSUE_DETAIL}),
    read_only=True)
def get_issue(ctx: ToolContext, repo: str, number: int) -> dict[str, Any]:
    row = find_repo(ctx, repo)
    return {"issue": _detail(ctx, row, find_item(ctx, row, number))}


@tools.tool(
    description="Open an issue. Anyone who can read the repository may open one (any user on a "
                "public repository). Setting labels, assignees or a milestone at creation "
                "needs triage access; labels must already exist; assignees must be assignable "
                "(write access or a member of the owning organization).",
    input=s.obj({"actor": ACTOR, "repo": REPO, "title": TITLE, "body": BODY,
                 "labels": s.array(s.string(max_length=50), max_items=20),
                 "assignees": ASSIGNEES, "milestone_id": s.integer(minimum=1)},
                required=["actor", "repo", "title"]),
    output=s.obj({"issue": ISSUE_DETAIL}))
def create_issue(ctx: ToolContext, actor: str, repo: str, title: str, body: str = "",
                 labels: list[str] | None = None, assignees: list[str] | None = None,
                 milestone_id: int | None = None) -> dict[str, Any]:
    row, actor = authorize(ctx, repo, actor, "read", "opening issues")
    if (labels or assignees or milestone_id) and not has(ctx, row, actor, "triage"):
        raise ToolError(ErrorCode.FORBIDDEN, f"{actor} needs triage access to set labels, "
                        "assignees or a milestone", actor=actor, required="triage")
    label_ids = resolve_labels(ctx, row, labels or [])
    if milestone_id is not None:
        check_milestone(ctx, row, milestone_id)
    number = ctx.scalar("SELECT COALESCE(MAX(number), 0) + 1 FROM issues WHERE repo_id = ?",
                        (row["id"],))
    now = ctx.clock.iso()
    ctx.insert("issues", {"repo_id": row["id"], "number": number, "kind": "issue",
                          "title": title.strip() or title, "body": body, "author": actor,
                          "state": "open", "milestone_id": milestone_id, "created_at": now,
                          "updated_at": now})
    item = find_item(ctx, row, number)
    ctx.executemany("INSERT INTO issue_labels VALUES (?, ?)", [(item["id"], i) for i in label_ids])
    replace_assignees(ctx, row, item, assignees or [])
    return {"issue": _detail(ctx, row, item)}


def _new_state(item: dict[str, Any], state: str | None, reason: str | None) -> tuple[str, Any]:
    """The (state, state_reason) an issue update leads to, refusing mismatched pairs."""
    target = state or item["state"]
    if item["kind"] == "pull":
        if reason is not None:
            raise ToolError(ErrorCode.VALIDATION_ERROR, "pull requests have no state_reason")
        return target, None
    if target == "closed":
        reason = reason or (item["state_reason"] if item["state"] == "closed" else "completed")
        if reason == "reopened":
            raise ToolError(ErrorCode.VALIDATION_ERROR, "a closed issue's state_reason must be "
                            "completed or not_planned, not reopened", state_reason=reason)
        return target, reason
    if reason in ("completed", "not_planned"):
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"state_reason {reason} needs state closed; "
                        "an open issue can only have state_reason reopened", state_reason=reason)
    return target, "reopened" if item["state"] == "closed" else (reason or item["state_reason"])


def _check_edit_rights(ctx, row, item, actor, edits_text, edits_state, edits_assignees):
    author = item["author"].lower() == actor.lower()
    if edits_text and not (author or has(ctx, row, actor, "write")):
        raise ToolError(ErrorCode.FORBIDDEN, f"only the author or users with write access can "
                        f"edit #{item['number']}'s title or body", required="write")
    if edits_state and not (author or has(ctx, row, actor, "triage")):
        raise ToolError(ErrorCode.FORBIDDEN, f"only the author or users with triage access can "
                        f"close or reopen #{item['number']}", required="triage")
    if edits_assignees and not has(ctx, row, actor, "triage"):
        raise ToolError(ErrorCode.FORBIDDEN, "changing assignees needs triage access",
                        required="triage")


@tools.tool(
    description="Edit an issue or pull request: title, body, state (open/closed), "
                "state_reason, and assignees (the list replaces the current one). Closing "
                "defaults state_reason to completed; not_planned is only valid when closed and "
                "reopened only when open. The author may edit their own issue's text and close "
                "or reopen it; otherwise editing text needs write and closing/reopening or "
                "assigning needs triage. Merged pull requests cannot be reopened.",
    input=s.obj({"actor": ACTOR, "repo": REPO, "number": NUMBER, "title": TITLE, "body": BODY,
                 "state": s.enum(["open", "closed"]),
                 "state_reason": s.enum(["completed", "not_planned", "reopened"]),
                 "assignees": ASSIGNEES},
                required=["actor", "repo", "number"]),
    output=s.obj({"issue": ISSUE_DETAIL}), idempotent=True)
def update_issue(ctx: ToolContext, actor: str, repo: str, number: int, title: str | None = None,
                 body: str | None = None, state: str | None = None,
                 state_reason: str | None = None,
                 assignees: list[str] | None = None) -> dict[str, Any]:
    if all(v is None for v in (title, body, state, state_reason, assignees)):
        raise ToolError(ErrorCode.VALIDATION_ERROR, "nothing to update: pass at least one of "
                        "title, body, state, state_reason, assignees")
    row, actor = authorize(ctx, repo, actor, "read", "editing issues")
    item = find_item(ctx, row, number)
    _check_edit_rights(ctx, row, item, actor, title is not None or body is not None,
                       state is not None or state_reason is not None, assignees is not None)
    new_state, reason = _new_state(item, state, state_reason)
    changes: dict[str, Any] = {"state": new_state, "state_reason": reason}
    if title is not None:
        changes["title"] = title
    if body is not None:
        changes["body"] = body
    if new_state != item["state"]:
        sync_pull_state(ctx, row, item, new_state)
        closing = new_state == "closed"
        changes.update(closed_at=ctx.clock.iso() if closing else None,
                       closed_by=actor if closing else None)
    if assignees is not None:
        replace_assignees(ctx, row, item, assignees)
    ctx.update("issues", item["id"], {**changes, "updated_at": ctx.clock.iso()})
    return {"issue": _detail(ctx, row, item)}


@tools.tool(
    description="Comment on an issue or pull request. Needs read access (any user on a public "
                "repository). On a locked conversation only users with write access can "
                "comment.",
    input=s.obj({"actor": ACTOR, "repo": REPO, "number": NUMBER,
                 "body": s.string("Markdown comment, 1-20000 characters.", max_length=20_000,
                                  min_length=1)}),
    output=s.obj({"comment": COMMENT}))
def add_issue_comment(ctx: ToolContext, actor: str, repo: str, number: int,
                      body: str) -> dict[str, Any]:
    row, actor = authorize(ctx, repo, actor, "read", "commenting")
    item = find_item(ctx, row, number)
    if not body.strip():
        raise ToolError(ErrorCode.VALIDATION_ERROR, "comment body must not be blank")
    if item["locked"] and not has(ctx, row, actor, "write"):
        raise ToolError(ErrorCode.FORBIDDEN, f"#{number} is locked; only collaborators with "
                        "write access can comment", required="write")
    cur = ctx.db.execute("INSERT INTO comments (issue_id, author, body, created_at) "
                         "VALUES (?, ?, ?, ?)", (item["id"], actor, body, ctx.clock.iso()))
    touch(ctx, item["id"])
    return {"comment": ctx.one("SELECT id, author, body, created_at FROM comments WHERE id = ?",
                               (cur.lastrowid,))}

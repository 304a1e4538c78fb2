"""Repository tools: list and inspect repositories, look up a user's role, create labels."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError
from agentworld.servers import schema as s

from ._common import (
    ACTOR,
    CURSOR,
    LIMIT,
    LOGIN,
    MERGE_SETTINGS,
    REPO,
    authorize,
    find_account,
    find_repo,
    like,
    paginate,
    permission_of,
    tools,
)
from ._views import LABEL, MILESTONE, label_view

REPO_SUMMARY = s.obj({
    "full_name": s.string(max_length=140), "owner": s.string(max_length=64), "name": s.string(),
    "description": s.string(max_length=500), "language": s.nullable(s.string(max_length=64)),
    "visibility": s.enum(["public", "private"]), "default_branch": s.string(),
    "archived": s.boolean(), "stars": s.integer(minimum=0),
    "open_issues": s.integer(minimum=0), "open_pull_requests": s.integer(minimum=0),
    "pushed_at": s.string(max_length=32),
})
BRANCH = s.obj({
    "name": s.string(), "head_sha": s.string(max_length=40), "protected": s.boolean(),
    "required_approvals": s.integer(minimum=0),
    "required_checks": s.array(s.string(), description="Check names that must pass to merge."),
})
REPO_DETAIL = s.obj({
    **REPO_SUMMARY["properties"],
    "allowed_merge_methods": s.array(s.enum(["merge", "squash", "rebase"])),
    "branches": s.array(BRANCH, max_items=500), "labels": s.array(LABEL, max_items=500),
    "milestones": s.array(MILESTONE, max_items=200),
    "collaborators": s.array(s.obj({"login": s.string(max_length=64),
                                    "permission": s.string(max_length=16)}), max_items=500),
})
PERMISSIONS = ["none", "read", "triage", "write", "maintain", "admin"]

_REPO_SELECT = (
    "SELECT r.*, "
    "(SELECT COUNT(*) FROM issues i WHERE i.repo_id = r.id AND i.kind = 'issue' "
    " AND i.state = 'open') AS open_issues, "
    "(SELECT COUNT(*) FROM issues i WHERE i.repo_id = r.id AND i.kind = 'pull' "
    " AND i.state = 'open') AS open_pull_requests FROM repos r")


def _summary(row: dict[str, Any]) -> dict[str, Any]:
    out = {key: row[key] for key in ("full_name", "owner", "name", "description", "language",
                                     "visibility", "default_branch", "stars", "open_issues",
                                     "open_pull_requests", "pushed_at")}
    out["archived"] = bool(row["archived"])
    return out


@tools.tool(
    description="List repositories, most recently pushed first. Filter by owner (user or "
                "organization login), visibility, language, archived flag, or a text query "
                "matched against name and description. Paged: pass next_cursor back as cursor.",
    input=s.obj({
        "owner": LOGIN, "visibility": s.enum(["public", "private"]),
        "language": s.string(max_length=64), "archived": s.boolean(),
        "query": s.string("Text to find in the name or description.", max_length=100),
        "limit": LIMIT, "cursor": CURSOR,
    }, required=[]),
    output=s.page_of(REPO_SUMMARY, "repositories"), read_only=True)
def list_repositories(ctx: ToolContext, owner: str | None = None, visibility: str | None = None,
                      language: str | None = None, archived: bool | None = None,
                      query: str | None = None, limit: int = 20,
                      cursor: str | None = None) -> dict[str, Any]:
    where, params = [], []
    for column, value in (("owner", owner), ("visibility", visibility),
                          ("language", language)):
        if value is not None:
            where.append(f"r.{column} = ? COLLATE NOCASE")
            params.append(value)
    if archived is not None:
        where.append("r.archived = ?")
        params.append(int(archived))
    if query:
        where.append("(r.name LIKE ? ESCAPE '\\' OR r.description LIKE ? ESCAPE '\\')")
        params += [like(query), like(query)]
    sql = _REPO_SELECT + (" WHERE " + " AND ".join(where) if where else "")
    return paginate(ctx, sql + " ORDER BY r.pushed_at DESC, r.id", params, limit=limit,
                    cursor=cursor, key="repositories", render=_summary)


@tools.tool(
    description="Get one repository with its settings: allowed merge methods, branches with "
                "protection (required approving reviews and required status checks), labels, "
                "milestones (with the ids set_milestone takes) and explicit collaborators. "
                "Organization owners are admins and members have read access even when not "
                "listed; use get_collaborator_permission for a user's effective role.",
    input=s.obj({"repo": REPO}), output=s.obj({"repository": REPO_DETAIL}), read_only=True)
def get_repository(ctx: ToolContext, repo: str) -> dict[str, Any]:
    row = find_repo(ctx, repo)
    full = ctx.one(_REPO_SELECT + " WHERE r.id = ?", (row["id"],))
    out = _summary(full)
    out["allowed_merge_methods"] = [m for m, setting in MERGE_SETTINGS.items() if row[setting]]
    out["branches"] = [_branch(ctx, row["id"], b) for b in ctx.all(
        "SELECT * FROM branches WHERE repo_id = ? ORDER BY name", (row["id"],))]
    out["labels"] = [label_view(lb) for lb in ctx.all(
        "SELECT * FROM labels WHERE repo_id = ? ORDER BY name", (row["id"],))]
    out["milestones"] = ctx.all("SELECT id, number, title, state, due_on FROM milestones "
                                "WHERE repo_id = ? ORDER BY number", (row["id"],))
    out["collaborators"] = ctx.all("SELECT login, permission FROM collaborators "
                                   "WHERE repo_id = ? ORDER BY login", (row["id"],))
    return {"repository": out}


def _branch(ctx: ToolContext, repo_id: int, branch: dict[str, Any]) -> dict[str, Any]:
    checks = [r["context"] for r in ctx.all(
        "SELECT context FROM required_checks WHERE repo_id = ? AND branch = ? ORDER BY context",
        (repo_id, branch["name"]))]
    return {"name": branch["name"], "head_sha": branch["head_sha"],
            "protected": bool(branch["protected"]),
            "required_approvals": branch["required_approvals"], "required_checks": checks}


@tools.tool(
    description="A user's effective role on a repository (none, read, triage, write, maintain, "
                "admin) and where it comes from (repository owner, organization owner, "
                "collaborator, organization member, public repository).",
    input=s.obj({"repo": REPO, "login": LOGIN}),
    output=s.obj({"login": s.string(max_length=64), "permission": s.enum(PERMISSIONS),
                  "source": s.string(max_length=32)}), read_only=True)
def get_collaborator_permission(ctx: ToolContext, repo: str, login: str) -> dict[str, Any]:
    row = find_repo(ctx, repo)
    account = find_account(ctx, login)
    permission, source = permission_of(ctx, row, account["login"])
    return {"login": account["login"], "permission": permission, "source": source}


@tools.tool(
    description="Create a label in a repository. Needs write access. Label names are unique "
                "per repository ignoring case ('Bug' clashes with 'bug'). Color is six hex "
                "digits without '#'.",
    input=s.obj({
        "actor": ACTOR, "repo": REPO, "name": s.string(max_length=50, min_length=1),
        "color": s.string("Six hex digits, e.g. d73a4a.", max_length=6,
                          pattern=r"^[0-9a-fA-F]{6}$"),
        "description": s.string(max_length=100),
    }, required=["actor", "repo", "name", "color"]),
    output=s.obj({"label": LABEL}))
def create_label(ctx: ToolContext, actor: str, repo: str, name: str, color: str,
                 description: str = "") -> dict[str, Any]:
    row, _ = authorize(ctx, repo, actor, "write", "creating labels")
    name = name.strip()
    if not name:
        raise ToolError(ErrorCode.VALIDATION_ERROR, "label name must not be blank")
    clash = ctx.scalar("SELECT name FROM labels WHERE repo_id = ? AND name = ?",
                       (row["id"], name))
    if clash is not None:
        raise ToolError(ErrorCode.CONFLICT, f"label {clash!r} already exists in "
                        f"{row['full_name']} (names are unique ignoring case)", existing=clash)
    label = {"repo_id": row["id"], "name": name, "color": color.lower(),
             "description": description}
    ctx.insert("labels", label)
    return {"label": label_view(label)}

"""Shared pieces of the GitHub tools: the toolset, argument schemas, access checks, paging.

Access follows GitHub's model: a repository owner and organization owners are admins, explicit
collaborators have their granted role, organization members get the organization's base role
(read), and anyone may read a public repository. Archived repositories refuse every write.
"""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError, Toolset, not_found
from agentworld.servers import schema as s

__all__ = [
    "tools", "LEVELS", "REPO", "ACTOR", "NUMBER", "LIMIT", "CURSOR", "LOGIN",
    "find_repo", "find_account", "permission_of", "has", "authorize", "find_item", "touch",
    "paginate", "labels_of", "assignees_of", "can_be_assigned", "like", "MERGE_SETTINGS",
]

tools = Toolset()

LEVELS = {"none": 0, "read": 1, "triage": 2, "write": 3, "maintain": 4, "admin": 5}
# Merge method -> the repository setting that allows it.
MERGE_SETTINGS = {"merge": "allow_merge_commit", "squash": "allow_squash_merge",
                  "rebase": "allow_rebase_merge"}
# The organization-wide base role of members on repositories they are not a collaborator of.
ORG_BASE_PERMISSION = "read"

REPO = s.string("Repository as owner/name, for example harborline/web-app.", max_length=140,
                min_length=3, pattern=r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
LOGIN = s.string("A user login, for example amelia-chen.", max_length=64, min_length=1)
ACTOR = s.string("Login of the user performing the action; their role on the repository is "
                 "checked.", max_length=64, min_length=1)
NUMBER = s.integer("Issue or pull request number within the repository (they share one "
                   "sequence).", minimum=1)
LIMIT = s.integer("Page size, 1-100 (default 20).", minimum=1, maximum=100)
CURSOR = s.string("The next_cursor of a previous page.", max_length=20)


def find_repo(ctx: ToolContext, full_name: str) -> dict[str, Any]:
    repo = ctx.one("SELECT * FROM repos WHERE full_name = ?", (full_name,))
    if repo is None:
        raise not_found("repository", full_name)
    return repo


def find_account(ctx: ToolContext, login: str, *, acting: bool = False) -> dict[str, Any]:
    account = ctx.one("SELECT * FROM accounts WHERE login = ?", (login,))
    if account is None:
        raise not_found("user", login)
    if acting and account["type"] == "Organization":
        raise ToolError(ErrorCode.VALIDATION_ERROR,
                        f"{login} is an organization; only users can act", login=login)
    return account


def permission_of(ctx: ToolContext, repo: dict[str, Any], login: str) -> tuple[str, str]:
    """The effective role of ``login`` on ``repo`` and where it comes from."""
    candidates = [("none", "none")]
    if repo["visibility"] == "public":
        candidates.append(("read", "public"))
    if repo["owner"].lower() == login.lower():
        candidates.append(("admin", "owner"))
    role = ctx.scalar("SELECT role FROM org_members WHERE org = ? AND login = ?",
                      (repo["owner"], login))
    if role == "owner":
        candidates.append(("admin", "organization owner"))
    elif role == "member":
        candidates.append((ORG_BASE_PERMISSION, "organization member"))
    granted = ctx.scalar("SELECT permission FROM collaborators WHERE repo_id = ? AND login = ?",
                         (repo["id"], login))
    if granted:
        candidates.append((granted, "collaborator"))
    return max(candidates, key=lambda c: LEVELS[c[0]])


def has(ctx: ToolContext, repo: dict[str, Any], login: str, level: str) -> bool:
    return LEVELS[permission_of(ctx, repo, login)[0]] >= LEVELS[level]


def authorize(ctx: ToolContext, full_name: str, actor: str, level: str,
              action: str) -> tuple[dict[str, Any], str]:
    """The repository and the actor's canonical login, once ``actor`` may write to it with at
    least role ``level``.

    Raises NOT_FOUND for an unknown repository or actor, FORBIDDEN when the repository is
    archived or the actor's role is below ``level``.
    """
    repo = find_repo(ctx, full_name)
    login = find_account(ctx, actor, acting=True)["login"]
    if repo["archived"]:
        raise ToolError(ErrorCode.FORBIDDEN,
                        f"{repo['full_name']} is archived and therefore read-only",
                        repository=repo["full_name"])
    permission, _ = permission_of(ctx, repo, login)
    if LEVELS[permission] < LEVELS[level]:
        raise ToolError(ErrorCode.FORBIDDEN,
                        f"{login} has {permission} access to {repo['full_name']}; {action} "
                        f"needs {level}", actor=login, permission=permission, required=level)
    return repo, login


def find_item(ctx: ToolContext, repo: dict[str, Any], number: int,
              kind: str | None = None) -> dict[str, Any]:
    """The issue or pull request ``number`` of ``repo``; ``kind`` narrows it to one of them."""
    item = ctx.one("SELECT * FROM issues WHERE repo_id = ? AND number = ?", (repo["id"], number))
    if item is None or (kind is not None and item["kind"] != kind):
        noun = {"pull": "pull request", "issue": "issue"}.get(kind or "", "issue or pull request")
        raise not_found(noun, f"{repo['full_name']}#{number}")
    return item


def touch(ctx: ToolContext, item_id: int) -> None:
    ctx.update("issues", item_id, {"updated_at": ctx.clock.iso()})


def labels_of(ctx: ToolContext, item_id: int) -> list[str]:
    return [r["name"] for r in ctx.all(
        "SELECT l.name FROM issue_labels il JOIN labels l ON l.id = il.label_id "
        "WHERE il.issue_id = ? ORDER BY l.name", (item_id,))]


def assignees_of(ctx: ToolContext, item_id: int) -> list[str]:
    return [r["login"] for r in ctx.all(
        "SELECT login FROM issue_assignees WHERE issue_id = ? ORDER BY login", (item_id,))]


def can_be_assigned(ctx: ToolContext, repo: dict[str, Any], login: str,
                    item: dict[str, Any] | None) -> bool:
    """GitHub's assignable users: writers, members of the owning organization, participants."""
    if has(ctx, repo, login, "write"):
        return True
    if ctx.scalar("SELECT 1 FROM org_members WHERE org = ? AND login = ?", (repo["owner"], login)):
        return True
    if item is None:
        return False
    return item["author"] == login or bool(ctx.scalar(
        "SELECT 1 FROM comments WHERE issue_id = ? AND author = ?", (item["id"], login)))


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit() or len(cursor) > 9:
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"malformed cursor {cursor!r}; pass the "
                        "next_cursor value of a previous page", cursor=cursor)
    return int(cursor)


def paginate(ctx: ToolContext, sql: str, params: list[Any], *, limit: int, cursor: str | None,
             key: str, render) -> dict[str, Any]:
    """One page of ``sql`` (which must have a stable ORDER BY) rendered item by item."""
    offset = _offset(cursor)
    total = ctx.scalar(f"SELECT COUNT(*) FROM ({sql})", params)
    rows = ctx.all(f"{sql} LIMIT ? OFFSET ?", [*params, limit, offset])
    following = offset + limit
    return {key: [render(row) for row in rows],
            "next_cursor": str(following) if following < total else None, "total": total}


def like(term: str) -> str:
    """A LIKE pattern matching ``term`` literally anywhere (escape character is backslash)."""
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"

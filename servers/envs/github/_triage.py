"""Checks shared by the tools that label, assign and schedule issues."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError, not_found

from ._common import can_be_assigned, find_account

__all__ = ["resolve_labels", "check_milestone", "replace_assignees", "MAX_ASSIGNEES"]

MAX_ASSIGNEES = 10


def resolve_labels(ctx: ToolContext, repo: dict[str, Any], names: list[str]) -> list[int]:
    """Label ids for ``names`` (matched ignoring case); NOT_FOUND names the first missing one."""
    ids: list[int] = []
    for name in names:
        label_id = ctx.scalar("SELECT id FROM labels WHERE repo_id = ? AND name = ?",
                              (repo["id"], name.strip()))
        if label_id is None:
            raise not_found("label", name)
        if label_id not in ids:
            ids.append(label_id)
    return ids


def check_milestone(ctx: ToolContext, repo: dict[str, Any], milestone_id: int) -> dict[str, Any]:
    """The milestone, once it is an open milestone of ``repo``."""
    milestone = ctx.one("SELECT * FROM milestones WHERE id = ?", (milestone_id,))
    if milestone is None:
        raise not_found("milestone", milestone_id)
    if milestone["repo_id"] != repo["id"]:
        owner = ctx.scalar("SELECT full_name FROM repos WHERE id = ?", (milestone["repo_id"],))
        raise ToolError(ErrorCode.VALIDATION_ERROR,
                        f"milestone {milestone_id} ({milestone['title']}) belongs to {owner}, "
                        f"not {repo['full_name']}", milestone_id=milestone_id)
    if milestone["state"] != "open":
        raise ToolError(ErrorCode.VALIDATION_ERROR,
                        f"milestone {milestone['title']} is closed; reopen it or pick an open "
                        "milestone", milestone_id=milestone_id)
    return milestone


def replace_assignees(ctx: ToolContext, repo: dict[str, Any], item: dict[str, Any],
                      logins: list[str]) -> list[str]:
    """Make ``logins`` the assignees of ``item``, refusing users GitHub would not assign."""
    canonical: list[str] = []
    for login in logins:
        name = find_account(ctx, login, acting=True)["login"]
        if not can_be_assigned(ctx, repo, name, item):
            raise ToolError(ErrorCode.VALIDATION_ERROR,
                            f"{name} cannot be assigned in {repo['full_name']}: assignees need "
                            "write access, membership of the owning organization, or to have "
                            "taken part in the conversation", login=name)
        if name not in canonical:
            canonical.append(name)
    if len(canonical) > MAX_ASSIGNEES:
        raise ToolError(ErrorCode.VALIDATION_ERROR,
                        f"at most {MAX_ASSIGNEES} assignees per issue", count=len(canonical))
    ctx.db.execute("DELETE FROM issue_assignees WHERE issue_id = ?", (item["id"],))
    ctx.executemany("INSERT INTO issue_assignees VALUES (?, ?)",
                    [(item["id"], login) for login in canonical])
    return canonical

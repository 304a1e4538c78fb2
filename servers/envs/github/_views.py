"""Output schemas and the functions that render rows into them, shared by all GitHub tools."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ToolContext
from agentworld.servers import schema as s

from ._common import assignees_of, labels_of

__all__ = [
    "MILESTONE", "ISSUE", "ISSUE_DETAIL", "COMMENT", "PULL", "REVIEW", "CHECK_RUN", "LABEL",
    "milestone_view", "issue_view", "pull_view", "check_view", "label_view", "COMMENT_LIMIT",
]

# get_issue returns at most this many comments (the oldest first) plus the total count.
COMMENT_LIMIT = 100

STATE_REASON = s.nullable(s.enum(["completed", "not_planned", "reopened"]))
NULL_TEXT = s.nullable(s.string(max_length=64))

MILESTONE = s.obj({
    "id": s.integer("Global milestone id: pass it to set_milestone."),
    "number": s.integer("Number of the milestone within its repository."),
    "title": s.string(), "state": s.enum(["open", "closed"]),
    "due_on": s.nullable(s.string(max_length=32)),
})
LABEL = s.obj({"name": s.string(), "color": s.string(max_length=6),
               "description": s.string(max_length=200)})
ISSUE = s.obj({
    "repo": s.string(max_length=140), "number": s.integer(), "title": s.string(max_length=256),
    "state": s.enum(["open", "closed"]), "state_reason": STATE_REASON,
    "is_pull_request": s.boolean(), "author": s.string(max_length=64),
    "labels": s.array(s.string()), "assignees": s.array(s.string(max_length=64)),
    "milestone": s.nullable(MILESTONE), "comments": s.integer(minimum=0),
    "locked": s.boolean(), "created_at": s.string(max_length=32),
    "updated_at": s.string(max_length=32), "closed_at": NULL_TEXT,
})
COMMENT = s.obj({"id": s.integer(), "author": s.string(max_length=64),
                 "body": s.text(max_length=70_000), "created_at": s.string(max_length=32)})
ISSUE_DETAIL = s.obj({
    **ISSUE["properties"], "body": s.text(max_length=70_000), "closed_by": NULL_TEXT,
    "comment_list": s.array(COMMENT, max_items=COMMENT_LIMIT),
})
REVIEW = s.obj({
    "id": s.integer(), "reviewer": s.string(max_length=64),
    "state": s.enum(["APPROVED", "CHANGES_REQUESTED", "COMMENTED"]),
    "body": s.text(max_length=70_000), "commit_id": s.string(max_length=40),
    "submitted_at": s.string(max_length=32),
    "on_current_head": s.boolean("True when the review was made on the current head commit."),
    "reviewer_can_write": s.boolean("Only reviews by users with write access count toward "
                                    "branch protection."),
})
PULL = s.obj({
    "repo": s.string(max_length=140), "number": s.integer(), "title": s.string(max_length=256),
    "author": s.string(max_length=64), "state": s.enum(["open", "closed", "merged"]),
    "draft": s.boolean(), "head": s.string(), "base": s.string(),
    "head_sha": s.string(max_length=40), "mergeable": s.boolean("False when it has conflicts."),
    "labels": s.array(s.string()), "created_at": s.string(max_length=32),
    "updated_at": s.string(max_length=32), "merged_at": NULL_TEXT,
})
CHECK_RUN = s.obj({
    "id": s.integer(), "name": s.string(), "app": s.string(), "head_sha": s.string(max_length=40),
    "status": s.enum(["queued", "in_progress", "completed"]),
    "conclusion": s.nullable(s.enum(["success", "failure", "neutral", "cancelled", "skipped",
                                     "timed_out"])),
    "started_at": NULL_TEXT, "completed_at": NULL_TEXT,
})


def milestone_view(ctx: ToolContext, milestone_id: int | None) -> dict[str, Any] | None:
    if milestone_id is None:
        return None
    return ctx.one("SELECT id, number, title, state, due_on FROM milestones WHERE id = ?",
                   (milestone_id,))


def label_view(row: dict[str, Any]) -> dict[str, Any]:
    return {"name": row["name"], "color": row["color"], "description": row["description"]}


def issue_view(ctx: ToolContext, row: dict[str, Any], full_name: str) -> dict[str, Any]:
    return {
        "repo": full_name, "number": row["number"], "title": row["title"],
        "state": row["state"], "state_reason": row["state_reason"],
        "is_pull_request": row["kind"] == "pull", "author": row["author"],
        "labels": labels_of(ctx, row["id"]), "assignees": assignees_of(ctx, row["id"]),
        "milestone": milestone_view(ctx, row["milestone_id"]),
        "comments": ctx.scalar("SELECT COUNT(*) FROM comments WHERE issue_id = ?", (row["id"],)),
        "locked": bool(row["locked"]), "created_at": row["created_at"],
        "updated_at": row["updated_at"], "closed_at": row["closed_at"],
    }


def pull_view(ctx: ToolContext, issue: dict[str, Any], pull: dict[str, Any],
              full_name: str) -> dict[str, Any]:
    return {
        "repo": full_name, "number": issue["number"], "title": issue["title"],
        "author": issue["author"], "state": pull["state"], "draft": bool(pull["draft"]),
        "head": pull["head_branch"], "base": pull["base_branch"], "head_sha": pull["head_sha"],
        "mergeable": bool(pull["mergeable"]), "labels": labels_of(ctx, issue["id"]),
        "created_at": issue["created_at"], "updated_at": issue["updated_at"],
        "merged_at": pull["merged_at"],
    }


def check_view(row: dict[str, Any]) -> dict[str, Any]:
    return {key: row[key] for key in ("id", "name", "app", "head_sha", "status", "conclusion",
                                      "started_at", "completed_at")}

"""Triage tools: apply and remove labels, and put issues on milestones (triage access)."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ToolContext, not_found
from agentworld.servers import schema as s

from ._common import ACTOR, NUMBER, REPO, authorize, find_item, labels_of, tools, touch
from ._triage import check_milestone, resolve_labels
from ._views import MILESTONE, milestone_view

LABELS_OUT = s.obj({"repo": s.string(max_length=140), "number": s.integer(),
                    "labels": s.array(s.string(), description="All labels now on the item.")})


@tools.tool(
    description="Add existing labels (by name, case-insensitive) to an issue or pull request. "
                "Needs triage access. Labels already present are kept; a name that is not a "
                "label of the repository is NOT_FOUND (create it first with create_label).",
    input=s.obj({"actor": ACTOR, "repo": REPO, "number": NUMBER,
                 "labels": s.array(s.string(max_length=50, min_length=1), min_items=1,
                                   max_items=20)}),
    output=LABELS_OUT, idempotent=True)
def add_labels(ctx: ToolContext, actor: str, repo: str, number: int,
               labels: list[str]) -> dict[str, Any]:
    row, _ = authorize(ctx, repo, actor, "triage", "labelling")
    item = find_item(ctx, row, number)
    ctx.executemany("INSERT OR IGNORE INTO issue_labels VALUES (?, ?)",
                    [(item["id"], label_id) for label_id in resolve_labels(ctx, row, labels)])
    touch(ctx, item["id"])
    return {"repo": row["full_name"], "number": number, "labels": labels_of(ctx, item["id"])}


@tools.tool(
    description="Remove one label (by name, case-insensitive) from an issue or pull request. "
                "Needs triage access. NOT_FOUND when the item does not carry that label.",
    input=s.obj({"actor": ACTOR, "repo": REPO, "number": NUMBER,
                 "label": s.string(max_length=50, min_length=1)}),
    output=LABELS_OUT, destructive=True)
def remove_label(ctx: ToolContext, actor: str, repo: str, number: int,
                 label: str) -> dict[str, Any]:
    row, _ = authorize(ctx, repo, actor, "triage", "labelling")
    item = find_item(ctx, row, number)
    label_id = ctx.scalar(
        "SELECT l.id FROM issue_labels il JOIN labels l ON l.id = il.label_id "
        "WHERE il.issue_id = ? AND l.name = ?", (item["id"], label.strip()))
    if label_id is None:
        raise not_found("label on this item", label)
    ctx.db.execute("DELETE FROM issue_labels WHERE issue_id = ? AND label_id = ?",
                   (item["id"], label_id))
    touch(ctx, item["id"])
    return {"repo": row["full_name"], "number": number, "labels": labels_of(ctx, item["id"])}


@tools.tool(
    description="Put an issue or pull request on a milestone, or take it off with "
                "milestone_id null. Needs triage access. The milestone (see get_repository for "
                "ids) must belong to the same repository and be open.",
    input=s.obj({"actor": ACTOR, "repo": REPO, "number": NUMBER,
                 "milestone_id": s.nullable(s.integer(minimum=1))}),
    output=s.obj({"repo": s.string(max_length=140), "number": s.integer(),
                  "milestone": s.nullable(MILESTONE)}), idempotent=True)
def set_milestone(ctx: ToolContext, actor: str, repo: str, number: int,
                  milestone_id: int | None) -> dict[str, Any]:
    row, _ = authorize(ctx, repo, actor, "triage", "setting milestones")
    item = find_item(ctx, row, number)
    if milestone_id is not None:
        check_milestone(ctx, row, milestone_id)
    ctx.update("issues", item["id"], {"milestone_id": milestone_id,
                                      "updated_at": ctx.clock.iso()})
    return {"repo": row["full_name"], "number": number,
            "milestone": milestone_view(ctx, milestone_id)}

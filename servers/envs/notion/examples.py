"""A tour of every tool, replayable in one fresh session (seed 0); every call succeeds.

Only seeded ids are used, so the tour does not depend on the ids new objects get.
"""

from __future__ import annotations

from typing import Any

from .seeder import sid

__all__ = ["EXAMPLE_CALLS"]

_PM = sid("usr", "pm_growth")
_SRE = sid("usr", "sre1")
_ROADMAP = sid("db", "roadmap")
_RUNBOOK = sid("pg", "runbook-0")
_PRIVATE = sid("pg", "private-pm_growth")

EXAMPLE_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("list_members", {"actor_id": _PM, "role": "member", "limit": 5}),
    ("search", {"actor_id": _SRE, "query": "runbook", "limit": 5}),
    ("get_page", {"actor_id": _SRE, "page_id": sid("pg", "runbooks")}),
    ("get_block_children", {"actor_id": _SRE, "parent_id": _RUNBOOK, "limit": 50}),
    ("create_page", {"actor_id": _SRE, "title": "Runbook: Redis memory pressure",
                     "parent_page_id": sid("pg", "runbooks"), "icon": "🧯"}),
    ("update_page", {"actor_id": _SRE, "page_id": _RUNBOOK, "icon": "🚨"}),
    ("append_blocks", {"actor_id": _SRE, "parent_id": _RUNBOOK, "children": [
        {"type": "heading_3", "text": "Known causes"},
        {"type": "bulleted_list_item", "text": "A bad deploy of auth-service",
         "children": [{"type": "paragraph", "text": "Roll back first, then investigate."}]},
        {"type": "code", "text": "kubectl -n gateway get pods", "language": "bash"}]}),
    ("update_block", {"actor_id": _SRE, "block_id": sid("blk", "runbook-0/12"),
                      "checked": True}),
    ("delete_block", {"actor_id": _SRE, "block_id": sid("blk", "runbook-0/10")}),
    ("move_page", {"actor_id": _SRE, "page_id": sid("pg", "runbook-7"),
                   "new_parent_page_id": sid("pg", "svc-web-app")}),
    ("archive_page", {"actor_id": _PM, "page_id": sid("pg", "meeting-5")}),
    ("restore_page", {"actor_id": _PM, "page_id": sid("pg", "meeting-3")}),
    ("get_database", {"actor_id": _PM, "database_id": _ROADMAP}),
    ("query_database", {"actor_id": _PM, "database_id": _ROADMAP,
                        "filters": [{"property": "Status", "operator": "equals",
                                     "value": "In progress"}],
                        "sort": {"property": "Due date", "direction": "ascending"}}),
    ("create_database_row", {"actor_id": _PM, "database_id": _ROADMAP, "properties": {
        "Name": "Workspace analytics export", "Status": "Planned", "Priority": "P2",
        "Owner": [_PM], "Team": "Growth", "Quarter": "Q2 2026", "Due date": "2026-05-29",
        "Tags": ["customer-request"], "Effort (weeks)": 3, "Customer facing": True}}),
    ("update_database_row_properties", {"actor_id": _PM, "page_id": sid("pg", "roadmap-3"),
                                        "properties": {"Status": "Shipped"}}),
    ("add_comment", {"actor_id": _PM, "page_id": sid("pg", "spec-1"),
                     "body": "Should the usage dashboard show forecasts for the month?"}),
    ("add_comment", {"actor_id": _PM, "discussion_id": sid("dsc", "billing-spec-alerts"),
                     "body": "Agreed, billing admins by default."}),
    ("list_comments", {"actor_id": _PM, "page_id": sid("pg", "spec-1")}),
    ("resolve_comment", {"actor_id": _PM, "discussion_id": sid("dsc", "billing-spec-alerts")}),
    ("share_page", {"actor_id": _PM, "page_id": _PRIVATE, "member_id": sid("usr", "designer"),
                    "level": "can_comment"}),
    ("get_page_permissions", {"actor_id": _PM, "page_id": _PRIVATE}),
]

"""GitHub: repositories, issues, pull requests, reviews, checks and merges under branch
protection, for the Harborline organization.

Exposes ``DEFINITION`` for the catalog and ``EXAMPLE_CALLS``, a call sequence that succeeds in
one fresh session (seed 0) and uses every tool.
"""

from __future__ import annotations

from pathlib import Path

from agentworld.servers import EnvironmentDefinition

# Importing the tool modules registers their tools on the shared toolset.
from . import tools_checks, tools_issues, tools_pulls, tools_repos, tools_triage  # noqa: F401
from ._common import tools
from .manifest import MANIFEST
from .seed import seed

__all__ = ["DEFINITION", "EXAMPLE_CALLS"]

DEFINITION = EnvironmentDefinition(
    manifest=MANIFEST,
    schema_sql=Path(__file__).with_name("schema.sql").read_text(encoding="utf-8"),
    seed=seed,
    tools=tools,
)

WEB = "harborline/web-app"
# tomas-levi triages web-app, hiroshi-rossi and ravi-rossi can write, hiroshi-shah is its admin.
# The pushed branch feat/expose-dark-mode-as-option has green CI but no pull request yet.
EXAMPLE_CALLS: list[tuple[str, dict]] = [
    ("list_repositories", {"owner": "harborline", "limit": 5}),
    ("get_repository", {"repo": WEB}),
    ("get_collaborator_permission", {"repo": WEB, "login": "tomas-levi"}),
    ("search_issues", {"repo": WEB, "label": "bug", "state": "open"}),
    ("get_issue", {"repo": WEB, "number": 238}),
    ("create_issue", {"actor": "tomas-levi", "repo": WEB,
                      "title": "Checkout page loses the coupon code after a failed payment",
                      "body": "Retrying the payment clears the coupon field.",
                      "labels": ["bug"], "assignees": ["hiroshi-rossi"]}),
    ("update_issue", {"actor": "tomas-levi", "repo": WEB, "number": 238,
                      "assignees": ["hiroshi-rossi"]}),
    ("add_issue_comment", {"actor": "hiroshi-rossi", "repo": WEB, "number": 238,
                           "body": "I can reproduce this; looking into the session handling."}),
    ("create_label", {"actor": "hiroshi-shah", "repo": WEB, "name": "needs-design",
                      "color": "5319e7", "description": "Waiting on a design review"}),
    ("add_labels", {"actor": "tomas-levi", "repo": WEB, "number": 238,
                    "labels": ["priority: high", "needs-design"]}),
    ("remove_label", {"actor": "tomas-levi", "repo": WEB, "number": 238,
                      "label": "needs-design"}),
    ("set_milestone", {"actor": "tomas-levi", "repo": WEB, "number": 238, "milestone_id": 2}),
    ("list_pull_requests", {"repo": WEB}),
    ("get_pull_request", {"repo": WEB, "number": 241}),
    ("list_check_runs", {"repo": WEB, "ref": "feat/expose-dark-mode-as-option"}),
    ("create_pull_request", {"actor": "hiroshi-rossi", "repo": WEB,
                             "title": "feat: support dark mode in the project sidebar",
                             "head": "feat/expose-dark-mode-as-option",
                             "body": "Fixes #240."}),
    ("submit_review", {"actor": "ravi-rossi", "repo": WEB, "number": 243, "event": "APPROVE",
                       "body": "Tested locally, looks good."}),
    ("merge_pull_request", {"actor": "hiroshi-shah", "repo": WEB, "number": 243,
                            "merge_method": "squash"}),
    ("rerun_check_run", {"actor": "hiroshi-rossi", "repo": WEB, "check_run_id": 86}),
    ("update_issue", {"actor": "tomas-levi", "repo": WEB, "number": 239, "state": "closed",
                      "state_reason": "not_planned"}),
]

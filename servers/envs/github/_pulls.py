"""Pull request logic shared by the pull, merge and issue tools.

``readiness`` is the single place that decides whether a pull request may merge, so what
get_pull_request reports as blockers is exactly what merge_pull_request refuses on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError

from ._common import find_item, has

__all__ = ["find_pull", "sync_pull_state", "ensure_single_open", "latest_checks", "Readiness",
           "readiness", "PASSING"]

# Conclusions that satisfy a required status check, as on GitHub.
PASSING = ("success", "neutral", "skipped")


def find_pull(ctx: ToolContext, repo: dict[str, Any],
              number: int) -> tuple[dict[str, Any], dict[str, Any]]:
    issue = find_item(ctx, repo, number, kind="pull")
    return issue, ctx.one("SELECT * FROM pulls WHERE issue_id = ?", (issue["id"],))


def ensure_single_open(ctx: ToolContext, repo: dict[str, Any], head: str, base: str,
                       exclude: int | None = None) -> None:
    """GitHub allows one open pull request per head -> base pair."""
    other = ctx.scalar(
        "SELECT i.number FROM pulls p JOIN issues i ON i.id = p.issue_id WHERE i.repo_id = ? "
        "AND p.head_branch = ? AND p.base_branch = ? AND p.state = 'open' AND p.issue_id <> ?",
        (repo["id"], head, base, exclude or 0))
    if other is not None:
        raise ToolError(ErrorCode.CONFLICT, f"a pull request already exists for {head} -> "
                        f"{base}: #{other}", existing=other)


def sync_pull_state(ctx: ToolContext, repo: dict[str, Any], issue: dict[str, Any],
                    new_state: str) -> None:
    """Close or reopen the pull request behind ``issue`` when its issue state changes."""
    if issue["kind"] != "pull":
        return
    pull = ctx.one("SELECT * FROM pulls WHERE issue_id = ?", (issue["id"],))
    if pull["state"] == "merged":
        raise ToolError(ErrorCode.CONFLICT, f"#{issue['number']} is merged; a merged pull "
                        "request cannot be closed or reopened", number=issue["number"])
    if new_state == "open":
        for branch in (pull["head_branch"], pull["base_branch"]):
            if not ctx.scalar("SELECT 1 FROM branches WHERE repo_id = ? AND name = ?",
                              (repo["id"], branch)):
                raise ToolError(ErrorCode.VALIDATION_ERROR, f"cannot reopen #{issue['number']}:"
                                f" branch {branch} no longer exists", branch=branch)
        ensure_single_open(ctx, repo, pull["head_branch"], pull["base_branch"], issue["id"])
    ctx.update("pulls", issue["id"], {"state": new_state}, column="issue_id")


def latest_checks(ctx: ToolContext, repo_id: int, head_sha: str) -> list[dict[str, Any]]:
    """The most recent check run of each name on a commit (re-runs supersede older attempts)."""
    return ctx.all(
        "SELECT * FROM check_runs WHERE id IN (SELECT MAX(id) FROM check_runs "
        "WHERE repo_id = ? AND head_sha = ? GROUP BY name) ORDER BY name", (repo_id, head_sha))


def _check_state(run: dict[str, Any] | None) -> str:
    if run is None:
        return "missing"
    if run["status"] != "completed":
        return "pending"
    return "passing" if run["conclusion"] in PASSING else "failing"


@dataclass
class Readiness:
    """Everything that decides whether a pull request can merge right now."""

    required_approvals: int
    required_checks: list[dict[str, str]]
    approvals: list[str]
    changes_requested_by: list[str]
    other_failures: list[str]
    blockers: list[tuple[str, ErrorCode, str]] = field(default_factory=list)

    def first(self, *kinds: str) -> tuple[str, ErrorCode, str] | None:
        return next((b for b in self.blockers if not kinds or b[0] in kinds), None)


def _protection(ctx: ToolContext, repo_id: int, branch: str) -> tuple[int, list[str]]:
    row = ctx.one("SELECT required_approvals, protected FROM branches "
                  "WHERE repo_id = ? AND name = ?", (repo_id, branch))
    if row is None or not row["protected"]:
        return 0, []
    checks = [r["context"] for r in ctx.all(
        "SELECT context FROM required_checks WHERE repo_id = ? AND branch = ? ORDER BY context",
        (repo_id, branch))]
    return row["required_approvals"], checks


def _review_verdicts(ctx: ToolContext, repo: dict[str, Any], issue: dict[str, Any],
                     head_sha: str) -> tuple[list[str], list[str]]:
    """(approvers on the head commit, users requesting changes), counting writers only."""
    latest: dict[str, dict[str, Any]] = {}
    for review in ctx.all("SELECT * FROM reviews WHERE issue_id = ? AND state <> 'COMMENTED' "
                          "ORDER BY id", (issue["id"],)):
        latest[review["reviewer"]] = review
    writers = {login for login in latest if has(ctx, repo, login, "write")}
    approvals = sorted(lg for lg, r in latest.items() if lg in writers
                       and r["state"] == "APPROVED" and r["commit_id"] == head_sha)
    changes = sorted(lg for lg, r in latest.items() if lg in writers
                     and r["state"] == "CHANGES_REQUESTED")
    return approvals, changes


def readiness(ctx: ToolContext, repo: dict[str, Any], issue: dict[str, Any],
              pull: dict[str, Any]) -> Readiness:
    needed, contexts = _protection(ctx, repo["id"], pull["base_branch"])
    runs = {run["name"]: run for run in latest_checks(ctx, repo["id"], pull["head_sha"])}
    required = [{"name": name, "state": _check_state(runs.get(name))} for name in contexts]
    others = sorted(name for name, run in runs.items()
                    if name not in contexts and _check_state(run) == "failing")
    approvals, changes = _review_verdicts(ctx, repo, issue, pull["head_sha"])
    ready = Readiness(needed, required, approvals, changes, others)
    number = issue["number"]
    if pull["state"] != "open":
        ready.blockers.append(("state", ErrorCode.CONFLICT,
                               f"#{number} is already {pull['state']}"))
    if pull["draft"]:
        ready.blockers.append(("draft", ErrorCode.PRECONDITION_FAILED, f"#{number} is a draft; "
                               "mark it ready for review first"))
    if not pull["mergeable"]:
        ready.blockers.append(("conflict", ErrorCode.CONFLICT, f"#{number} has merge conflicts "
                               f"with {pull['base_branch']}"))
    unmet = [f"{c['name']} ({c['state']})" for c in required if c["state"] != "passing"]
    if unmet:
        ready.blockers.append(("checks", ErrorCode.PRECONDITION_FAILED,
                               "required status checks have not passed: " + ", ".join(unmet)))
    if changes:
        ready.blockers.append(("changes_requested", ErrorCode.PRECONDITION_FAILED,
                               "changes requested by " + ", ".join(changes)))
    if len(approvals) < needed:
        ready.blockers.append(("approvals", ErrorCode.PRECONDITION_FAILED,
                               f"{needed} approving review(s) on the head commit required, "
                               f"{len(approvals)} given"))
    return ready

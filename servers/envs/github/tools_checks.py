"""CI and merging: list check runs, re-run a finished check, merge a pull request."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError, not_found
from agentworld.servers import schema as s

from ._common import (
    ACTOR,
    CURSOR,
    LIMIT,
    MERGE_SETTINGS,
    NUMBER,
    REPO,
    authorize,
    find_repo,
    paginate,
    tools,
)
from ._pulls import find_pull, readiness
from ._views import CHECK_RUN, check_view

SHA = s.string("A full 40-character commit SHA.", max_length=40, min_length=40,
               pattern=r"^[0-9a-f]{40}$")
CHECKS_PAGE = s.obj({**s.page_of(CHECK_RUN, "check_runs")["properties"],
                     "head_sha": s.string(max_length=40)})
# GitHub's closing keywords: "Fixes #12" in a pull request body closes issue 12 on merge.
CLOSING = re.compile(r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+#(\d+)", re.I)


def _resolve_sha(ctx: ToolContext, repo: dict[str, Any], pull_number: int | None,
                 ref: str | None) -> str:
    if (pull_number is None) == (ref is None):
        raise ToolError(ErrorCode.VALIDATION_ERROR, "pass exactly one of pull_number or ref")
    if pull_number is not None:
        return find_pull(ctx, repo, pull_number)[1]["head_sha"]
    branch_sha = ctx.scalar("SELECT head_sha FROM branches WHERE repo_id = ? AND name = ?",
                            (repo["id"], ref))
    if branch_sha is not None:
        return branch_sha
    if re.fullmatch(r"[0-9a-f]{40}", ref):
        return ref
    raise not_found("ref", ref)


@tools.tool(
    description="List the check runs on a commit, given a pull request number (its head "
                "commit) or a ref (branch name or 40-character SHA). By default only the latest "
                "run of each check name is shown (a re-run supersedes older attempts); "
                "latest_only=false shows every attempt. Optional status filter. Paged.",
    input=s.obj({"repo": REPO, "pull_number": s.integer(minimum=1),
                 "ref": s.string("Branch name or commit SHA.", max_length=200, min_length=1),
                 "status": s.enum(["queued", "in_progress", "completed"]),
                 "latest_only": s.boolean(), "limit": LIMIT, "cursor": CURSOR},
                required=["repo"]),
    output=CHECKS_PAGE, read_only=True)
def list_check_runs(ctx: ToolContext, repo: str, pull_number: int | None = None,
                    ref: str | None = None, status: str | None = None,
                    latest_only: bool = True, limit: int = 20,
                    cursor: str | None = None) -> dict[str, Any]:
    row = find_repo(ctx, repo)
    head = _resolve_sha(ctx, row, pull_number, ref)
    sql = "SELECT * FROM check_runs WHERE repo_id = ? AND head_sha = ?"
    params: list[Any] = [row["id"], head]
    if latest_only:
        sql += (" AND id IN (SELECT MAX(id) FROM check_runs WHERE repo_id = ? AND head_sha = ? "
                "GROUP BY name)")
        params += [row["id"], head]
    if status is not None:
        sql += " AND status = ?"
        params.append(status)
    page = paginate(ctx, sql + " ORDER BY name, id", params, limit=limit, cursor=cursor,
                    key="check_runs", render=check_view)
    return {**page, "head_sha": head}


@tools.tool(
    description="Re-run a finished check run (for example a flaky failure). Needs write "
                "access. Only the latest attempt of a completed check can be re-run; the new "
                "attempt starts queued and supersedes the old one, so it counts as pending "
                "until CI reports back.",
    input=s.obj({"actor": ACTOR, "repo": REPO, "check_run_id": s.integer(minimum=1)}),
    output=s.obj({"check_run": CHECK_RUN}))
def rerun_check_run(ctx: ToolContext, actor: str, repo: str, check_run_id: int) -> dict[str, Any]:
    row, _ = authorize(ctx, repo, actor, "write", "re-running checks")
    run = ctx.one("SELECT * FROM check_runs WHERE id = ? AND repo_id = ?",
                  (check_run_id, row["id"]))
    if run is None:
        raise not_found("check run", check_run_id)
    if run["status"] != "completed":
        raise ToolError(ErrorCode.CONFLICT, f"check run {check_run_id} ({run['name']}) is still "
                        f"{run['status']}; only completed runs can be re-run",
                        status=run["status"])
    newer = ctx.scalar("SELECT MAX(id) FROM check_runs WHERE repo_id = ? AND head_sha = ? "
                       "AND name = ?", (row["id"], run["head_sha"], run["name"]))
    if newer != check_run_id:
        raise ToolError(ErrorCode.CONFLICT, f"check run {check_run_id} was superseded by "
                        f"{newer}; re-run the latest attempt", latest=newer)
    cur = ctx.db.execute("INSERT INTO check_runs (repo_id, head_sha, name, app, status) "
                         "VALUES (?, ?, ?, ?, 'queued')",
                         (row["id"], run["head_sha"], run["name"], run["app"]))
    return {"check_run": check_view(ctx.one("SELECT * FROM check_runs WHERE id = ?",
                                            (cur.lastrowid,)))}


def _refuse(blocker: tuple[str, ErrorCode, str] | None) -> None:
    if blocker is not None:
        kind, code, message = blocker
        raise ToolError(code, f"merge refused: {message}", reason=kind)


def _close_linked(ctx: ToolContext, repo: dict[str, Any], body: str, actor: str) -> list[int]:
    closed: list[int] = []
    for number in dict.fromkeys(int(n) for n in CLOSING.findall(body)):
        issue = ctx.one("SELECT * FROM issues WHERE repo_id = ? AND number = ? "
                        "AND kind = 'issue' AND state = 'open'", (repo["id"], number))
        if issue is not None:
            ctx.update("issues", issue["id"], {
                "state": "closed", "state_reason": "completed", "closed_at": ctx.clock.iso(),
                "closed_by": actor, "updated_at": ctx.clock.iso()})
            closed.append(number)
    return closed


@tools.tool(
    description="Merge an open pull request with merge_method merge (default), squash or rebase "
                "(the repository must allow it). Needs write access. Refused when the pull "
                "request is a draft, already merged or closed, has conflicts, when a required "
                "status check on the head commit is failing, pending or missing, when a writer's "
                "latest review requests changes, or when fewer writers than the base branch "
                "requires have approved the current head commit. Pass sha to merge only if the "
                "head is still that commit. Merging into the default branch closes issues the "
                "body references with closing keywords (Fixes #12).",
    input=s.obj({"actor": ACTOR, "repo": REPO, "number": NUMBER,
                 "merge_method": s.enum(list(MERGE_SETTINGS)), "sha": SHA,
                 "commit_title": s.string(max_length=256)},
                required=["actor", "repo", "number"]),
    output=s.obj({"merged": s.boolean(), "sha": s.string(max_length=40),
                  "merge_method": s.enum(list(MERGE_SETTINGS)),
                  "message": s.string(max_length=500), "closed_issues": s.array(s.integer())}),
    destructive=True)
def merge_pull_request(ctx: ToolContext, actor: str, repo: str, number: int,
                       merge_method: str = "merge", sha: str | None = None,
                       commit_title: str | None = None) -> dict[str, Any]:
    row, actor = authorize(ctx, repo, actor, "write", "merging pull requests")
    issue, pull = find_pull(ctx, row, number)
    ready = readiness(ctx, row, issue, pull)
    _refuse(ready.first("state", "draft"))
    if sha is not None and sha != pull["head_sha"]:
        raise ToolError(ErrorCode.CONFLICT, f"head branch was modified: #{number} is at "
                        f"{pull['head_sha']}, not {sha}; review the new commits and try again",
                        head_sha=pull["head_sha"])
    if not row[MERGE_SETTINGS[merge_method]]:
        allowed = [m for m, setting in MERGE_SETTINGS.items() if row[setting]]
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"{merge_method} merges are not allowed in "
                        f"{row['full_name']}; allowed: {', '.join(allowed)}", allowed=allowed)
    _refuse(ready.first())
    now = ctx.clock.iso()
    merge_sha = hashlib.sha1(ctx.ids.new("commit").encode()).hexdigest()
    ctx.update("pulls", issue["id"], {"state": "merged", "merged_at": now, "merged_by": actor,
                                      "merge_method": merge_method,
                                      "merge_commit_sha": merge_sha}, column="issue_id")
    ctx.update("issues", issue["id"], {"state": "closed", "closed_at": now, "closed_by": actor,
                                       "updated_at": now})
    ctx.db.execute("UPDATE branches SET head_sha = ?, updated_at = ? WHERE repo_id = ? "
                   "AND name = ?", (merge_sha, now, row["id"], pull["base_branch"]))
    ctx.update("repos", row["id"], {"pushed_at": now})
    closed = (_close_linked(ctx, row, issue["body"], actor)
              if pull["base_branch"] == row["default_branch"] else [])
    title = commit_title or f"{issue['title']} (#{number})"
    message = f"Pull request #{number} merged into {pull['base_branch']}: {title}"
    return {"merged": True, "sha": merge_sha, "merge_method": merge_method,
            "message": message[:500], "closed_issues": closed}

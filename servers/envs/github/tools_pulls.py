"""Pull request tools: list, inspect (with reviews and merge readiness), open, and review."""

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
    find_repo,
    has,
    paginate,
    tools,
)
from ._pulls import ensure_single_open, find_pull, latest_checks, readiness
from ._views import PULL, REVIEW, pull_view

BRANCH = s.string("Branch name.", max_length=200, min_length=1)
CHECK_STATE = s.enum(["passing", "failing", "pending", "missing"])
PULL_DETAIL = s.obj({
    **PULL["properties"], "body": s.text(max_length=70_000),
    "additions": s.integer(minimum=0), "deletions": s.integer(minimum=0),
    "merged_by": s.nullable(s.string(max_length=64)),
    "merge_method": s.nullable(s.enum(["merge", "squash", "rebase"])),
    "merge_commit_sha": s.nullable(s.string(max_length=40)),
    "reviews": s.array(REVIEW, max_items=1000),
    "required_approvals": s.integer(minimum=0),
    "approvals_on_head": s.array(s.string(max_length=64),
                                 description="Writers whose latest review approves the head."),
    "changes_requested_by": s.array(s.string(max_length=64)),
    "required_checks": s.array(s.obj({"name": s.string(), "state": CHECK_STATE})),
    "failing_optional_checks": s.array(s.string()),
    "mergeable_state": s.nullable(s.enum(["clean", "unstable", "blocked", "dirty", "draft"])),
    "merge_blockers": s.array(s.string(max_length=500),
                              description="Why merge_pull_request would refuse now; empty when "
                                          "it can merge."),
})


@tools.tool(
    description="List a repository's pull requests, newest first. Filter by state (open "
                "[default], closed, merged, all), base branch, head branch, author and draft. "
                "Paged: pass next_cursor back as cursor.",
    input=s.obj({"repo": REPO, "state": s.enum(["open", "closed", "merged", "all"]),
                 "base": BRANCH, "head": BRANCH, "author": LOGIN, "draft": s.boolean(),
                 "limit": LIMIT, "cursor": CURSOR}, required=["repo"]),
    output=s.page_of(PULL, "pull_requests"), read_only=True)
def list_pull_requests(ctx: ToolContext, repo: str, state: str = "open", base: str | None = None,
                       head: str | None = None, author: str | None = None,
                       draft: bool | None = None, limit: int = 20,
                       cursor: str | None = None) -> dict[str, Any]:
    row = find_repo(ctx, repo)
    where, params = ["i.repo_id = ?"], [row["id"]]
    for clause, value in (("p.state = ?", None if state == "all" else state),
                          ("p.base_branch = ?", base), ("p.head_branch = ?", head),
                          ("i.author = ? COLLATE NOCASE", author),
                          ("p.draft = ?", None if draft is None else int(draft))):
        if value is not None:
            where.append(clause)
            params.append(value)
    sql = ("SELECT i.*, p.* FROM issues i JOIN pulls p ON p.issue_id = i.id "
           "WHERE " + " AND ".join(where) + " ORDER BY i.number DESC")
    return paginate(ctx, sql, params, limit=limit, cursor=cursor, key="pull_requests",
                    render=lambda r: pull_view(ctx, r, r, row["full_name"]))


def _review_view(ctx: ToolContext, repo, review: dict[str, Any], head: str) -> dict[str, Any]:
    out = {k: review[k] for k in ("id", "reviewer", "state", "body", "commit_id",
                                  "submitted_at")}
    out["on_current_head"] = review["commit_id"] == head
    out["reviewer_can_write"] = has(ctx, repo, review["reviewer"], "write")
    return out


def _mergeable_state(pull: dict[str, Any], ready) -> str | None:
    if pull["state"] != "open":
        return None
    if pull["draft"]:
        return "draft"
    if not pull["mergeable"]:
        return "dirty"
    if ready.blockers:
        return "blocked"
    return "unstable" if ready.other_failures else "clean"


def pull_detail(ctx: ToolContext, repo: dict[str, Any], number: int) -> dict[str, Any]:
    issue, pull = find_pull(ctx, repo, number)
    ready = readiness(ctx, repo, issue, pull)
    out = pull_view(ctx, issue, pull, repo["full_name"])
    out.update(body=issue["body"], additions=pull["additions"], deletions=pull["deletions"],
               merged_by=pull["merged_by"], merge_method=pull["merge_method"],
               merge_commit_sha=pull["merge_commit_sha"])
    out["reviews"] = [_review_view(ctx, repo, r, pull["head_sha"]) for r in ctx.all(
        "SELECT * FROM reviews WHERE issue_id = ? ORDER BY id", (issue["id"],))]
    out.update(required_approvals=ready.required_approvals, approvals_on_head=ready.approvals,
               changes_requested_by=ready.changes_requested_by,
               required_checks=ready.required_checks,
               failing_optional_checks=ready.other_failures,
               mergeable_state=_mergeable_state(pull, ready),
               merge_blockers=[message for _, _, message in ready.blockers])
    return out


@tools.tool(
    description="Get one pull request with its reviews and merge readiness: approvals by "
                "writers on the current head commit versus the base branch's requirement, who "
                "requested changes, the state of each required status check (passing, failing, "
                "pending, missing), and merge_blockers listing every reason a merge would be "
                "refused now.",
    input=s.obj({"repo": REPO, "number": NUMBER}), output=s.obj({"pull_request": PULL_DETAIL}),
    read_only=True)
def get_pull_request(ctx: ToolContext, repo: str, number: int) -> dict[str, Any]:
    return {"pull_request": pull_detail(ctx, find_repo(ctx, repo), number)}


def _branch(ctx: ToolContext, repo: dict[str, Any], name: str, role: str) -> dict[str, Any]:
    branch = ctx.one("SELECT * FROM branches WHERE repo_id = ? AND name = ?", (repo["id"], name))
    if branch is None:
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"{role} branch {name!r} does not exist in "
                        f"{repo['full_name']}", field=role, branch=name)
    return branch


def _queue_ci(ctx: ToolContext, repo: dict[str, Any], base: str, head_sha: str) -> None:
    """Opening a pull request triggers CI: queue required checks the head commit lacks."""
    have = {run["name"] for run in latest_checks(ctx, repo["id"], head_sha)}
    for (context,) in ctx.db.execute(
            "SELECT context FROM required_checks WHERE repo_id = ? AND branch = ? "
            "ORDER BY context", (repo["id"], base)).fetchall():
        if context not in have:
            ctx.insert("check_runs", {"repo_id": repo["id"], "head_sha": head_sha,
                                      "name": context, "app": "GitHub Actions",
                                      "status": "queued"})


@tools.tool(
    description="Open a pull request from head branch into base branch (default: the "
                "repository's default branch) of the same repository. Needs read access. Both "
                "branches must exist, differ, and have different commits; only one open pull "
                "request may exist per head -> base pair. Missing required checks are queued.",
    input=s.obj({"actor": ACTOR, "repo": REPO, "title": s.string(max_length=256, min_length=1),
                 "head": BRANCH, "base": BRANCH, "body": s.text(), "draft": s.boolean()},
                required=["actor", "repo", "title", "head"]),
    output=s.obj({"pull_request": PULL_DETAIL}))
def create_pull_request(ctx: ToolContext, actor: str, repo: str, title: str, head: str,
                        base: str | None = None, body: str = "",
                        draft: bool = False) -> dict[str, Any]:
    row, actor = authorize(ctx, repo, actor, "read", "opening pull requests")
    base = base or row["default_branch"]
    if head == base:
        raise ToolError(ErrorCode.VALIDATION_ERROR, "head and base must be different branches",
                        head=head, base=base)
    head_branch = _branch(ctx, row, head, "head")
    if _branch(ctx, row, base, "base")["head_sha"] == head_branch["head_sha"]:
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"no commits between {base} and {head}")
    ensure_single_open(ctx, row, head, base)
    number = ctx.scalar("SELECT COALESCE(MAX(number), 0) + 1 FROM issues WHERE repo_id = ?",
                        (row["id"],))
    now = ctx.clock.iso()
    cur = ctx.db.execute(
        "INSERT INTO issues (repo_id, number, kind, title, body, author, state, created_at, "
        "updated_at) VALUES (?, ?, 'pull', ?, ?, ?, 'open', ?, ?)",
        (row["id"], number, title, body, actor, now, now))
    ctx.insert("pulls", {"issue_id": cur.lastrowid, "head_branch": head, "base_branch": base,
                         "head_sha": head_branch["head_sha"], "state": "open",
                         "draft": int(draft), "mergeable": 1})
    _queue_ci(ctx, row, base, head_branch["head_sha"])
    return {"pull_request": pull_detail(ctx, row, number)}


EVENTS = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}


@tools.tool(
    description="Review a pull request on its current head commit: APPROVE, REQUEST_CHANGES "
                "or COMMENT (the last two need a body). Needs read access, but only reviews by "
                "users with write access count toward branch protection. Authors cannot "
                "approve or request changes on their own pull request, and closed or merged "
                "pull requests cannot be approved or have changes requested.",
    input=s.obj({"actor": ACTOR, "repo": REPO, "number": NUMBER, "event": s.enum(list(EVENTS)),
                 "body": s.text()}, required=["actor", "repo", "number", "event"]),
    output=s.obj({"review": REVIEW}))
def submit_review(ctx: ToolContext, actor: str, repo: str, number: int, event: str,
                  body: str = "") -> dict[str, Any]:
    row, actor = authorize(ctx, repo, actor, "read", "reviewing")
    issue, pull = find_pull(ctx, row, number)
    if event != "COMMENT" and issue["author"].lower() == actor.lower():
        verb = "approve" if event == "APPROVE" else "request changes on"
        raise ToolError(ErrorCode.FORBIDDEN, f"you cannot {verb} your own pull request",
                        author=issue["author"])
    if event != "APPROVE" and not body.strip():
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"a {event} review needs a body")
    if event != "COMMENT" and pull["state"] != "open":
        raise ToolError(ErrorCode.PRECONDITION_FAILED,
                        f"#{number} is {pull['state']}; only open pull requests can be "
                        "approved or have changes requested", state=pull["state"])
    cur = ctx.db.execute(
        "INSERT INTO reviews (issue_id, reviewer, state, body, commit_id, submitted_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (issue["id"], actor, EVENTS[event], body, pull["head_sha"], ctx.clock.iso()))
    ctx.update("issues", issue["id"], {"updated_at": ctx.clock.iso()})
    review = ctx.one("SELECT * FROM reviews WHERE id = ?", (cur.lastrowid,))
    return {"review": _review_view(ctx, row, review, pull["head_sha"])}

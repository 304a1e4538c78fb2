"""Seed one repository's history: issues and pull requests in one number sequence, with labels,
assignees, milestones, comments, reviews, check runs and the branches they live on.

Open pull requests are spread over the situations a maintainer meets every day (ready to merge,
waiting for review, stale approval, changes requested, failing or pending checks, conflicts,
drafts), so every merge rule has seeded cases that trip it.
"""

from __future__ import annotations

import itertools
import random
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from . import seed_text as text
from .seed_data import BOT, REVIEW_APPROVE, REVIEW_CHANGES, REVIEW_COMMENT, RepoSpec

__all__ = ["RepoWorld", "populate", "scenario_deck", "iso", "parse", "sha"]

# How many of every 20 open, non-draft pull requests are in each situation.
SCENARIOS = {"ready": 5, "needs_review": 4, "stale_approval": 2, "changes_requested": 2,
             "failing_check": 3, "pending_check": 2, "conflict": 2}
CHECK_APPS = {"preview-deploy": "Vercel", "codecov/patch": "Codecov"}


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)


def sha(rng: random.Random) -> str:
    return f"{rng.getrandbits(160):040x}"


def scenario_deck(rng: random.Random) -> Iterator[str]:
    """Situations dealt to open pull requests in turn, so every one of them occurs."""
    cards = [name for name, count in SCENARIOS.items() for _ in range(count)]
    rng.shuffle(cards)
    return itertools.cycle(cards)


@dataclass
class RepoWorld:
    """What the activity generator needs to know about one repository."""

    id: int
    spec: RepoSpec
    start: datetime
    end: datetime
    writers: list[str]
    readers: list[str]
    deck: Iterator[str]
    labels: dict[str, int] = field(default_factory=dict)
    milestones: list[tuple[int, str | None]] = field(default_factory=list)  # (id, closed_at)
    titles: set[str] = field(default_factory=set)
    branches: set[str] = field(default_factory=set)

    def claim_branch(self, name: str) -> str:
        """``name``, or ``name-2``, ``name-3``... when a branch of that name was used already."""
        candidate, n = name, 2
        while candidate in self.branches:
            candidate, n = f"{name}-{n}", n + 1
        self.branches.add(candidate)
        return candidate

    def at(self, rng: random.Random, after: datetime, lo_h: float, hi_h: float) -> datetime:
        """A moment some hours after ``after``, never past the end of seeded activity."""
        moment = after + timedelta(minutes=rng.randint(int(lo_h * 60), int(hi_h * 60)))
        return min(moment, self.end)


def populate(conn: sqlite3.Connection, rng: random.Random, world: RepoWorld) -> None:
    """Generate and insert the issues and pull requests of one repository."""
    spec = world.spec
    kinds = ["issue"] * spec.issues + ["pull"] * spec.pulls
    rng.shuffle(kinds)
    span = (world.end - world.start).total_seconds()
    moments = sorted(world.start + timedelta(seconds=rng.uniform(0, span * 0.995))
                     for _ in kinds)
    number = rng.randrange(40, 900) if spec.created < "2023" else 0
    issues: list[dict] = []
    pulls: list[dict] = []
    for kind, moment in zip(kinds, moments, strict=True):
        number += 1
        age = (moment - world.start).total_seconds() / span
        if kind == "issue":
            issues.append(_issue(rng, world, number, moment, age))
        else:
            pulls.append(_pull(rng, world, number, moment, age, issues))
    for item in sorted(issues + pulls, key=lambda i: i["number"]):
        _insert_item(conn, world, item)
    _advance_bases(conn, world, pulls)
    _pushed_branches(conn, rng, world)


def _issue(rng: random.Random, world: RepoWorld, number: int, created: datetime,
           age: float) -> dict:
    spec = world.spec
    weights = (20, 10, 60, 10) if spec.name == "docs" else (45, 35, 10, 10)
    kind = rng.choices(("bug", "enhancement", "docs", "question"), weights)[0]
    title, body = text.issue_text(rng, spec, kind)
    while title in world.titles:
        title, body = text.issue_text(rng, spec, kind)
    world.titles.add(title)
    item = {"number": number, "kind": "issue", "type": kind, "title": title, "body": body,
            "author": rng.choice(world.readers), "created_at": created, "state": "open",
            "state_reason": None, "closed_at": None, "closed_by": None, "locked": 0,
            "milestone_id": None, "labels": [{"docs": "documentation"}.get(kind, kind)],
            "assignees": []}
    if rng.random() > 0.25 + 0.6 * age ** 2:
        _close_issue(rng, world, item)
    elif rng.random() < 0.06:
        item["state_reason"] = "reopened"
    if rng.random() < 0.1 and kind in ("bug", "docs"):
        item["labels"].append("good first issue")
    if rng.random() < 0.08:
        item["labels"].append(rng.choice(["help wanted", "priority: high", "performance"]))
    if rng.random() < (0.5 if item["state"] == "open" else 0.7):
        item["assignees"] = rng.sample(world.writers, rng.choice((1, 1, 1, 2)))
    # Open issues sit on open milestones; closed ones also on milestones closed after them.
    created = iso(item["created_at"])
    pool = [m for m, closed_at in world.milestones if closed_at is None
            or (item["state"] == "closed" and created < closed_at)]
    if pool and kind in ("bug", "enhancement") and rng.random() < 0.4:
        item["milestone_id"] = rng.choice(pool)
    item["comments"] = _comments(rng, world, item)
    return item


def _close_issue(rng: random.Random, world: RepoWorld, item: dict) -> None:
    item["state"] = "closed"
    item["closed_at"] = world.at(rng, item["created_at"], 1, 24 * 60)
    item["closed_by"] = rng.choice(world.writers)
    if rng.random() < 0.2:
        item["state_reason"] = "not_planned"
        if rng.random() < 0.6:
            item["labels"].append(rng.choice(["wontfix", "duplicate", "invalid"]))
        item["locked"] = int(rng.random() < 0.1)
    else:
        item["state_reason"] = "completed"


def _comments(rng: random.Random, world: RepoWorld, item: dict) -> list[tuple[str, str, str]]:
    count = rng.choices((0, 1, 2, 3, 4), (35, 30, 20, 10, 5))[0]
    until = item["closed_at"] or world.end
    hours = max(1.0, (until - item["created_at"]).total_seconds() / 3600)
    people = world.writers * 2 + world.readers
    stamps = sorted(world.at(rng, item["created_at"], 0.2, hours) for _ in range(count))
    return [(rng.choice(people), text.comment(rng, world.spec), iso(at)) for at in stamps]


def _pull(rng: random.Random, world: RepoWorld, number: int, created: datetime, age: float,
          issues: list[dict]) -> dict:
    spec = world.spec
    open_now = age > 0.6 and rng.random() < 0.75
    state = "open" if open_now else ("merged" if rng.random() < 0.78 else "closed")
    item = {"number": number, "kind": "pull", "created_at": created, "state": state,
            "state_reason": None, "closed_at": None, "closed_by": None, "locked": 0,
            "milestone_id": None, "assignees": [], "comments": [], "linked": None,
            "base": spec.default_branch, "head_sha": sha(rng), "draft": 0, "mergeable": 1,
            "additions": rng.randint(1, 600), "deletions": rng.randint(0, 300)}
    if spec.release_branch and rng.random() < 0.1:
        item["base"] = spec.release_branch
    if spec.deps and rng.random() < 0.15:
        title, branch, _ = text.bump(rng, spec)
        item.update(title=title, author=BOT, labels=["dependencies"],
                    body=f"Bumps {title[5:]}.\n\nDependabot will resolve conflicts as long as "
                         "you don't alter this PR yourself.")
    else:
        item.update(author=rng.choice(world.writers), labels=[])
        branch = _describe_change(rng, world, item, issues)
    item["head"] = world.claim_branch(branch)
    _settle(rng, world, item)
    return item


def _describe_change(rng: random.Random, world: RepoWorld, item: dict,
                     issues: list[dict]) -> str:
    """Title, body and branch of a human pull request, often fixing an earlier issue."""
    wanted = {"open": ("open",), "merged": ("open", "closed"), "closed": ("open", "closed")}
    candidates = [i for i in issues if i["type"] != "question" and i.get("fixed_by") is None
                  and i["state"] in wanted[item["state"]] and i["state_reason"] != "not_planned"]
    if candidates and rng.random() < 0.7:
        issue = rng.choice(candidates[-25:])
        issue["fixed_by"] = item["number"]
        item["linked"] = issue
        item["title"] = text.pull_title(issue["type"], issue["title"])
        item["body"] = f"Closes #{issue['number']}.\n\nSee the issue for the reproduction."
        item["labels"] = [lb for lb in issue["labels"] if lb in ("bug", "enhancement",
                                                                  "documentation")]
    else:
        item["title"] = text.chore_title(rng, world.spec)
        for _ in range(10):
            if item["title"] not in world.titles:
                break
            item["title"] = text.chore_title(rng, world.spec)
        world.titles.add(item["title"])
        item["body"] = "No behaviour change intended."
    prefix = item["title"].split(":", 1)[0].split("(", 1)[0]
    return f"{prefix}/{text.branch_slug(item['title'].split(':', 1)[-1])}"


def _settle(rng: random.Random, world: RepoWorld, item: dict) -> None:
    """Decide reviews, checks and the end state of a pull request."""
    created, author = item["created_at"], item["author"]
    required = world.spec.approvals
    old_sha = sha(rng)
    if item["state"] == "merged":
        merged_at = world.at(rng, created, 4, 24 * 8)
        item.update(merged_at=merged_at, closed_at=merged_at, merged_by=rng.choice(world.writers),
                    merge_method=rng.choice(world.spec.methods), merge_commit_sha=sha(rng))
        item["checks"] = _checks(rng, world, item["head_sha"], created, "success")
        item["reviews"] = _reviews(rng, world, author, item["head_sha"], old_sha, created,
                                   max(required, 1), changes_first=rng.random() < 0.25)
        item["closed_by"] = item["merged_by"]
        linked = item["linked"]
        if linked is not None:
            linked.update(state="closed", state_reason="completed", closed_at=merged_at,
                          closed_by=item["merged_by"])
        return
    if item["state"] == "closed":
        item["closed_at"] = world.at(rng, created, 36, 24 * 20)
        item["closed_by"] = rng.choice((author, rng.choice(world.writers)))
        item["checks"] = _checks(rng, world, item["head_sha"], created, "mixed")
        item["reviews"] = (_review(rng, world, author, item["head_sha"], created,
                                   "CHANGES_REQUESTED") if rng.random() < 0.5 else [])
        return
    _open_scenario(rng, world, item, old_sha, required)


def _open_scenario(rng: random.Random, world: RepoWorld, item: dict, old_sha: str,
                   required: int) -> None:
    created, author, head = item["created_at"], item["author"], item["head_sha"]
    if rng.random() < 0.18:
        item["draft"] = 1
        item["checks"] = _checks(rng, world, head, created, "mixed")
        item["reviews"] = []
        return
    scenario = next(world.deck)
    item["scenario"] = scenario
    outcome = {"failing_check": "failure", "pending_check": "pending"}.get(scenario, "success")
    item["checks"] = _checks(rng, world, head, created, outcome)
    item["mergeable"] = int(scenario != "conflict")
    if scenario == "needs_review":
        item["reviews"] = (_review(rng, world, author, head, created, "COMMENTED")
                           if rng.random() < 0.4 else [])
        return
    review_sha = old_sha if scenario == "stale_approval" else head
    item["reviews"] = _reviews(rng, world, author, review_sha, old_sha, created, required)
    if scenario == "changes_requested":
        done = {r[0] for r in item["reviews"]}
        item["reviews"] += _review(rng, world, author, head, created, "CHANGES_REQUESTED", done)


def _review(rng: random.Random, world: RepoWorld, author: str, commit: str, after: datetime,
            state: str, exclude: frozenset[str] | set[str] = frozenset()) -> list[tuple]:
    pool = [w for w in world.writers if w != author and w not in exclude]
    if not pool:
        return []
    body = {"APPROVED": REVIEW_APPROVE, "CHANGES_REQUESTED": REVIEW_CHANGES,
            "COMMENTED": REVIEW_COMMENT}[state]
    return [(rng.choice(pool), state, rng.choice(body), commit, iso(world.at(rng, after, 3, 30)))]


def _reviews(rng: random.Random, world: RepoWorld, author: str, commit: str, old_sha: str,
             after: datetime, count: int, *, changes_first: bool = False) -> list[tuple]:
    pool = [w for w in world.writers if w != author]
    chosen = rng.sample(pool, min(count, len(pool)))
    out = []
    if changes_first and chosen:
        out.append((chosen[0], "CHANGES_REQUESTED", rng.choice(REVIEW_CHANGES), old_sha,
                    iso(world.at(rng, after, 1, 2))))
    for reviewer in chosen:
        out.append((reviewer, "APPROVED", rng.choice(REVIEW_APPROVE), commit,
                    iso(world.at(rng, after, 2.5, 3))))
    return out


def _checks(rng: random.Random, world: RepoWorld, head: str, after: datetime,
            outcome: str) -> list[tuple]:
    """Check runs on one commit: the branch's required checks plus the repository's extra one."""
    names = list(world.spec.checks) + ([world.spec.extra_check] if world.spec.extra_check else [])
    odd = rng.choice(world.spec.checks) if world.spec.checks else None
    runs = []
    for name in names:
        status, conclusion = "completed", "success"
        if name == world.spec.extra_check:
            conclusion = rng.choice(("success", "success", "neutral"))
        elif outcome == "failure" and name == odd:
            conclusion = rng.choice(("failure", "failure", "timed_out"))
        elif outcome == "pending" and name == odd:
            status, conclusion = rng.choice(("queued", "in_progress")), None
        elif outcome == "mixed":
            conclusion = rng.choices(("success", "failure", "cancelled"), (70, 20, 10))[0]
        started = world.at(rng, after, 0.02, 0.1)
        finished = world.at(rng, started, 0.05, 0.3) if status == "completed" else None
        runs.append((head, name, CHECK_APPS.get(name, "GitHub Actions"), status, conclusion,
                     None if status == "queued" else iso(started), finished and iso(finished)))
    return runs


def _insert_item(conn: sqlite3.Connection, world: RepoWorld, item: dict) -> None:
    comments = item["comments"]
    stamps = [item["created_at"], item["closed_at"] or item["created_at"]]
    stamps += [parse(c[2]) for c in comments]
    cur = conn.execute(
        "INSERT INTO issues (repo_id, number, kind, title, body, author, state, state_reason, "
        "milestone_id, locked, created_at, updated_at, closed_at, closed_by) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (world.id, item["number"], item["kind"], item["title"], item["body"], item["author"],
         "open" if item["state"] == "open" else "closed", item["state_reason"],
         item["milestone_id"], item["locked"], iso(item["created_at"]), iso(max(stamps)),
         item["closed_at"] and iso(item["closed_at"]), item["closed_by"]))
    issue_id = cur.lastrowid
    conn.executemany("INSERT INTO issue_labels VALUES (?, ?)",
                     [(issue_id, world.labels[name]) for name in dict.fromkeys(item["labels"])])
    conn.executemany("INSERT INTO issue_assignees VALUES (?, ?)",
                     [(issue_id, login) for login in item["assignees"]])
    conn.executemany("INSERT INTO comments (issue_id, author, body, created_at) "
                     "VALUES (?, ?, ?, ?)", [(issue_id, *c) for c in comments])
    if item["kind"] == "pull":
        _insert_pull(conn, world, issue_id, item)


def _insert_pull(conn: sqlite3.Connection, world: RepoWorld, issue_id: int, item: dict) -> None:
    merged = item["state"] == "merged"
    conn.execute(
        "INSERT INTO pulls VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (issue_id, item["head"], item["base"], item["head_sha"], item["state"], item["draft"],
         item["mergeable"], item["additions"], item["deletions"],
         iso(item["merged_at"]) if merged else None, item.get("merged_by") if merged else None,
         item.get("merge_method") if merged else None, item.get("merge_commit_sha")))
    conn.executemany("INSERT INTO reviews (issue_id, reviewer, state, body, commit_id, "
                     "submitted_at) VALUES (?, ?, ?, ?, ?, ?)",
                     [(issue_id, *r) for r in sorted(item["reviews"], key=lambda r: r[4])])
    conn.executemany("INSERT INTO check_runs (repo_id, head_sha, name, app, status, conclusion, "
                     "started_at, completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     [(world.id, *run) for run in item["checks"]])
    # Merged branches are deleted on merge; about half of closed ones are kept around.
    if item["state"] == "open" or (item["state"] == "closed" and item["number"] % 2):
        conn.execute("INSERT INTO branches VALUES (?, ?, ?, 0, 0, ?)",
                     (world.id, item["head"], item["head_sha"], iso(item["created_at"])))


def _advance_bases(conn: sqlite3.Connection, world: RepoWorld, pulls: list[dict]) -> None:
    """Point each base branch at the merge commit of the last pull request merged into it."""
    merged = sorted((p for p in pulls if p["state"] == "merged"), key=lambda p: p["merged_at"])
    for pull in merged:
        conn.execute("UPDATE branches SET head_sha = ?, updated_at = ? "
                     "WHERE repo_id = ? AND name = ?",
                     (pull["merge_commit_sha"], iso(pull["merged_at"]), world.id, pull["base"]))


def _pushed_branches(conn: sqlite3.Connection, rng: random.Random, world: RepoWorld) -> None:
    """Branches pushed in the last days with CI results but no pull request yet."""
    spec = world.spec
    if spec.archived or not spec.checks:
        return
    outcomes = ("success", "failure") if spec.name in ("web-app", "api") else ("success",)
    for outcome in outcomes:
        title = text.chore_title(rng, spec) if outcome == "failure" else \
            "feat: " + text.issue_text(rng, spec, "enhancement")[0].lower()
        name = world.claim_branch(
            f"{title.split(':')[0]}/{text.branch_slug(title.split(':', 1)[1])}")
        head = sha(rng)
        pushed = world.end - timedelta(hours=rng.randint(6, 60))
        conn.execute("INSERT INTO branches VALUES (?, ?, ?, 0, 0, ?)",
                     (world.id, name, head, iso(pushed)))
        conn.executemany("INSERT INTO check_runs (repo_id, head_sha, name, app, status, "
                         "conclusion, started_at, completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         [(world.id, *run) for run in _checks(rng, world, head, pushed, outcome)])

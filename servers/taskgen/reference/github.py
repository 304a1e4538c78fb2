"""Reference tasks for the GitHub environment (the Harborline organization)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from ..record import TaskRecord
from ._common import (
    added,
    answer,
    guard,
    load,
    one,
    pages,
    record,
    rows,
    simulate,
    values,
)

__all__ = ["github_tasks"]

ENV = "github"
OPEN_ISSUES = ("SELECT i.* FROM issues i WHERE i.repo_id = ? AND i.kind = 'issue' "
               "AND i.state = 'open'")
FAILED = ("failure", "timed_out", "cancelled")


def _repos(db) -> list[dict[str, Any]]:
    return rows(db, "SELECT * FROM repos WHERE archived = 0 AND owner = 'harborline' ORDER BY id")


def _with(db, login_role: str, repo_id: int) -> str:
    return one(db, "SELECT login FROM collaborators WHERE repo_id = ? AND permission = ? "
               "ORDER BY login", repo_id, login_role)["login"]


def _labels(db, issue_id: int) -> set[str]:
    return {r["name"].lower() for r in rows(
        db, "SELECT l.name FROM issue_labels il JOIN labels l ON l.id = il.label_id "
        "WHERE il.issue_id = ?", issue_id)}


def _label_id(db, repo_id: int, name: str) -> int:
    return one(db, "SELECT id FROM labels WHERE repo_id = ? AND name = ?", repo_id, name)["id"]


def _search(repo: str, total: int, **filters: Any) -> list[list[Any]]:
    return pages("search_issues", {"repo": repo, **filters}, total, 50)


def _open_pulls(env, db, repo: dict[str, Any]) -> list[dict[str, Any]]:
    """Every open pull request of a repository with its merge readiness, as the tools see it."""
    numbers = [r["number"] for r in rows(
        db, "SELECT i.number FROM issues i JOIN pulls p ON p.issue_id = i.id "
        "WHERE i.repo_id = ? AND p.state = 'open' ORDER BY i.number DESC", repo["id"])]
    calls = [["get_pull_request", {"repo": repo["full_name"], "number": n}] for n in numbers]
    return [out["pull_request"] for out in simulate(env, calls)]


# ---- short tasks ----------------------------------------------------------------------------

def _count_label(env, db, n):
    repo, count = max(((r, len([i for i in rows(db, OPEN_ISSUES, r["id"])
                                if "bug" in _labels(db, i["id"])])) for r in _repos(db)),
                      key=lambda pair: (pair[1], -pair[0]["id"]))
    prompt = f"How many open issues (not pull requests) in {repo['full_name']} carry the bug label?"
    return record(ENV, n, prompt, _search(repo["full_name"], count, label="bug"),
                  [answer(count)], str(count), template="count_label")


def _label_title_word(env, db, n):
    best = None
    for repo in _repos(db):
        for word in ("crash", "error", "broken", "flaky", "500", "regression"):
            hits = [i for i in rows(db, OPEN_ISSUES, repo["id"]) if word in i["title"].lower()]
            todo = [i for i in hits if "bug" not in _labels(db, i["id"])]
            if len(todo) >= 2 and (best is None or (len(hits) > len(todo), len(todo)) >
                                   (len(best[2]) > len(best[3]), len(best[3]))):
                best = (repo, word, hits, todo)
    repo, word, hits, todo = best
    admin = _with(db, "admin", repo["id"])
    calls = [["search_issues", {"repo": repo["full_name"], "query": word, "limit": 50}]]
    calls += [["add_labels", {"actor": admin, "repo": repo["full_name"], "number": i["number"],
                              "labels": ["bug"]}] for i in todo]
    bug = _label_id(db, repo["id"], "bug")
    prompt = (f"Acting as {admin}: in {repo['full_name']}, label every open issue whose title "
              f"mentions \"{word}\" with bug (some may have it already), and tell me how many "
              "issues you newly labelled.")
    checks = [added("issue_labels", {"issue_id": i["id"], "label_id": bug}) for i in todo]
    checks += [answer(len(todo)), guard("issue_labels", len(todo))]
    return record(ENV, n, prompt, calls, checks, str(len(todo)), template="label_title_word")


def _merge_ready(env, db, n):
    for repo in _repos(db):
        pulls = _open_pulls(env, db, repo)
        ready = [p for p in pulls if not p["merge_blockers"] and p["approvals_on_head"]
                 and all(c["state"] == "passing" for c in p["required_checks"])]
        if len(ready) >= 2 and len(pulls) > len(ready):
            break
    else:
        raise LookupError("the seed has no situation for this task")
    method = "squash" if repo["allow_squash_merge"] else "merge"
    admin = _with(db, "admin", repo["id"])
    calls = [["list_pull_requests", {"repo": repo["full_name"], "limit": 50}]]
    calls += [["get_pull_request", {"repo": repo["full_name"], "number": p["number"]}]
              for p in pulls]
    calls += [["merge_pull_request", {"actor": admin, "repo": repo["full_name"],
                                      "number": p["number"], "merge_method": method}]
              for p in ready]
    ids = {p["number"]: one(db, "SELECT id FROM issues WHERE repo_id = ? AND number = ?",
                            repo["id"], p["number"])["id"] for p in ready}
    prompt = (f"Acting as {admin}: {method}-merge every open pull request in "
              f"{repo['full_name']} whose required status checks all pass and that has an "
              "approving review on its current head, as long as nothing else blocks the merge. "
              "Leave the others open and list the numbers you merged.")
    checks = [values("pulls", {"issue_id": ids[p["number"]]},
                     {"state": "merged", "merge_method": method}) for p in ready]
    checks += [answer(*[p["number"] for p in ready], points=1),
               guard("pulls", len(ready))]
    return record(ENV, n, prompt, calls, checks, ", ".join(str(p["number"]) for p in ready),
                  template="merge_ready")


def _close_old_in_milestone(env, db, n):
    for m in rows(db, "SELECT m.*, r.full_name FROM milestones m JOIN repos r ON r.id = "
                  "m.repo_id WHERE m.state = 'open' AND r.archived = 0 ORDER BY m.id"):
        issues = rows(db, "SELECT * FROM issues WHERE milestone_id = ? AND kind = 'issue' AND "
                      "state = 'open' ORDER BY created_at", m["id"])
        if len(issues) >= 3:
            break
    else:
        raise LookupError("the seed has no situation for this task")
    cutoff = issues[-1]["created_at"][:10]
    targets = [i for i in issues if i["created_at"][:10] < cutoff]
    admin = _with(db, "admin", m["repo_id"])
    calls = [["search_issues", {"repo": m["full_name"], "milestone": m["title"]}]]
    calls += [["update_issue", {"actor": admin, "repo": m["full_name"], "number": i["number"],
                                "state": "closed", "state_reason": "not_planned"}]
              for i in targets]
    prompt = (f"Acting as {admin}: close as not planned every open issue in milestone "
              f"{m['title']} of {m['full_name']} that was opened before {cutoff}.")
    checks = [values("issues", {"id": i["id"]}, {"state": "closed",
                                                 "state_reason": "not_planned"})
              for i in targets]
    checks.append(guard("issues", len(targets)))
    return record(ENV, n, prompt, calls, checks, None, template="close_old_in_milestone")


def _assign_unassigned_bugs(env, db, n):
    def todo(repo):
        return [i for i in rows(db, OPEN_ISSUES + " ORDER BY i.created_at DESC, i.id DESC",
                                repo["id"])
                if "bug" in _labels(db, i["id"]) and not rows(
                    db, "SELECT 1 FROM issue_assignees WHERE issue_id = ?", i["id"])]
    repo = next(r for r in _repos(db) if 2 <= len(todo(r)) <= 5)
    targets, owner = todo(repo), _with(db, "maintain", repo["id"])
    admin = _with(db, "admin", repo["id"])
    calls = [["search_issues", {"repo": repo["full_name"], "label": "bug", "assignee": "none"}]]
    calls += [["update_issue", {"actor": admin, "repo": repo["full_name"],
                                "number": i["number"], "assignees": [owner]}] for i in targets]
    prompt = (f"Acting as {admin}: assign every open bug in {repo['full_name']} that nobody is "
              f"assigned to yet to {owner}, then tell me how many issues you assigned.")
    checks = [added("issue_assignees", {"issue_id": i["id"], "login": owner}) for i in targets]
    checks += [answer(len(targets)), guard("issue_assignees", len(targets))]
    return record(ENV, n, prompt, calls, checks, str(len(targets)),
                  template="assign_unassigned_bugs")


COMMENT = "CI is failing on a required check; please take a look before this can merge."


def _comment_failing(env, db, n):
    for repo in _repos(db):
        pulls = _open_pulls(env, db, repo)
        failing = [p for p in pulls if any(c["state"] == "failing"
                                           for c in p["required_checks"])]
        if len(failing) >= 2 and len(pulls) > len(failing):
            break
    else:
        raise LookupError("the seed has no situation for this task")
    writer = _with(db, "maintain", repo["id"])
    calls = [["list_pull_requests", {"repo": repo["full_name"], "limit": 50}]]
    calls += [["get_pull_request", {"repo": repo["full_name"], "number": p["number"]}]
              for p in pulls]
    calls += [["add_issue_comment", {"actor": writer, "repo": repo["full_name"],
                                     "number": p["number"], "body": COMMENT}] for p in failing]
    ids = [one(db, "SELECT id FROM issues WHERE repo_id = ? AND number = ?", repo["id"],
               p["number"])["id"] for p in failing]
    prompt = (f"Acting as {writer}: on every open pull request in {repo['full_name']} where a "
              f"required status check is failing, post exactly this comment: \"{COMMENT}\"")
    checks = [added("comments", {"issue_id": i, "author": writer, "body": COMMENT}) for i in ids]
    checks.append(guard("comments", len(ids)))
    return record(ENV, n, prompt, calls, checks, None, template="comment_failing")


def _rerun_failed(env, db, n):
    def failed_runs(repo):
        out = []
        for pull in rows(db, "SELECT i.number, p.head_sha FROM pulls p JOIN issues i ON i.id = "
                         "p.issue_id WHERE i.repo_id = ? AND p.state = 'open' "
                         "ORDER BY i.number DESC", repo["id"]):
            out += [(pull, c) for c in rows(
                db, "SELECT * FROM check_runs WHERE id IN (SELECT MAX(id) FROM check_runs "
                "WHERE repo_id = ? AND head_sha = ? GROUP BY name) ORDER BY name, id",
                repo["id"], pull["head_sha"]) if c["conclusion"] in FAILED]
        return out
    repo = max(_repos(db), key=lambda r: (len(failed_runs(r)), -r["id"]))
    failed, writer = failed_runs(repo), _with(db, "maintain", repo["id"])
    pulls = rows(db, "SELECT i.number FROM pulls p JOIN issues i ON i.id = p.issue_id "
                 "WHERE i.repo_id = ? AND p.state = 'open' ORDER BY i.number DESC", repo["id"])
    calls = [["list_pull_requests", {"repo": repo["full_name"], "limit": 50}]]
    calls += [["list_check_runs", {"repo": repo["full_name"], "pull_number": p["number"]}]
              for p in pulls]
    calls += [["rerun_check_run", {"actor": writer, "repo": repo["full_name"],
                                   "check_run_id": c["id"]}] for _, c in failed]
    prompt = (f"Acting as {writer}: on every open pull request of {repo['full_name']}, re-run "
              "each check whose latest run failed, timed out or was cancelled. Tell me which "
              "pull requests had such a check.")
    checks = [added("check_runs", {"repo_id": repo["id"], "head_sha": c["head_sha"],
                                   "name": c["name"], "status": "queued"}) for _, c in failed]
    numbers = sorted({p["number"] for p, _ in failed})
    checks += [answer(*numbers, points=1), guard("check_runs", len(failed))]
    return record(ENV, n, prompt, calls, checks, ", ".join(map(str, numbers)),
                  template="rerun_failed")


def _public_stars(env, db, n):
    repos = rows(db, "SELECT * FROM repos WHERE owner = 'harborline' AND visibility = 'public'")
    total = sum(r["stars"] for r in repos)
    prompt = ("How many stars do the public repositories owned by the harborline organization "
              "have in total?")
    calls = [["list_repositories", {"owner": "harborline", "visibility": "public", "limit": 50}]]
    return record(ENV, n, prompt, calls, [answer(total)], str(total), template="public_stars")


def _busiest_assignee(env, db, n):
    for repo in _repos(db):
        counts = Counter(r["login"] for r in rows(
            db, "SELECT a.login FROM issue_assignees a JOIN issues i ON i.id = a.issue_id "
            "WHERE i.repo_id = ? AND i.kind = 'issue' AND i.state = 'open'", repo["id"]))
        top = counts.most_common(2)
        if len(top) == 2 and top[0][1] > top[1][1] >= 1 and top[0][1] >= 3:
            break
    else:
        raise LookupError("the seed has no situation for this task")
    total = len(rows(db, OPEN_ISSUES, repo["id"]))
    prompt = (f"Who has the most open issues assigned to them in {repo['full_name']}, and how "
              "many?")
    return record(ENV, n, prompt, _search(repo["full_name"], total, limit=50),
                  [answer(top[0][0]), answer(top[0][1], points=1, name="how many")],
                  f"{top[0][0]} {top[0][1]}", template="busiest_assignee")


def _top_merger(env, db, n):
    for repo in _repos(db):
        merged = rows(db, "SELECT i.author FROM pulls p JOIN issues i ON i.id = p.issue_id "
                      "WHERE i.repo_id = ? AND p.state = 'merged'", repo["id"])
        top = Counter(r["author"] for r in merged).most_common(2)
        if len(merged) >= 5 and len(top) == 2 and top[0][1] > top[1][1]:
            break
    else:
        raise LookupError("the seed has no situation for this task")
    prompt = (f"Whose pull requests have been merged most often in {repo['full_name']}? Give "
              "the login and the number of their merged pull requests.")
    calls = pages("list_pull_requests", {"repo": repo["full_name"], "state": "merged"},
                  len(merged), 50)
    return record(ENV, n, prompt, calls,
                  [answer(top[0][0]), answer(top[0][1], points=1, name="how many")],
                  f"{top[0][0]} {top[0][1]}", template="top_merger")


def _move_milestone(env, db, n):
    for m in rows(db, "SELECT m.*, r.full_name FROM milestones m JOIN repos r ON r.id = "
                  "m.repo_id WHERE m.state = 'open' AND m.due_on IS NOT NULL AND r.archived = 0 "
                  "ORDER BY m.due_on, m.id"):
        issues = rows(db, "SELECT * FROM issues WHERE milestone_id = ? AND kind = 'issue' AND "
                      "state = 'open' ORDER BY number", m["id"])
        later = rows(db, "SELECT * FROM milestones WHERE repo_id = ? AND state = 'open' AND "
                     "due_on > ? ORDER BY due_on", m["repo_id"], m["due_on"])
        if len(issues) >= 2 and later:
            break
    else:
        raise LookupError("the seed has no situation for this task")
    target, admin = later[0], _with(db, "admin", m["repo_id"])
    calls = [["get_repository", {"repo": m["full_name"]}],
             ["search_issues", {"repo": m["full_name"], "milestone": m["title"]}]]
    calls += [["set_milestone", {"actor": admin, "repo": m["full_name"], "number": i["number"],
                                 "milestone_id": target["id"]}] for i in issues]
    prompt = (f"Acting as {admin}: milestone {m['title']} of {m['full_name']} will not make it. "
              f"Move every open issue on it to milestone {target['title']} (leave pull requests "
              "where they are) and tell me how many issues you moved.")
    checks = [values("issues", {"id": i["id"]}, {"milestone_id": target["id"]}) for i in issues]
    checks += [answer(len(issues)), guard("issues", len(issues))]
    return record(ENV, n, prompt, calls, checks, str(len(issues)), template="move_milestone")


# ---- long-horizon tasks --------------------------------------------------------------------

def _help_wanted_sweep(env, db, n):
    """Label every unassigned open issue of the busiest repository 'help wanted'."""
    def todo(repo):
        return [i for i in rows(db, OPEN_ISSUES + " ORDER BY i.created_at DESC, i.id DESC",
                                repo["id"])
                if not rows(db, "SELECT 1 FROM issue_assignees WHERE issue_id = ?", i["id"])]
    repo = max(_repos(db), key=lambda r: (len(todo(r)), -r["id"]))
    targets = [i for i in todo(repo) if "help wanted" not in _labels(db, i["id"])]
    admin = _with(db, "admin", repo["id"])
    calls = [["search_issues", {"repo": repo["full_name"], "assignee": "none", "limit": 50}]]
    calls += [["add_labels", {"actor": admin, "repo": repo["full_name"], "number": i["number"],
                              "labels": ["help wanted"]}] for i in targets]
    label = _label_id(db, repo["id"], "help wanted")
    prompt = (f"Acting as {admin}: we want outside help on {repo['full_name']}. Add the "
              "'help wanted' label to every open issue there that has no assignee (skip those "
              "already labelled) and tell me how many issues you labelled.")
    checks = [added("issue_labels", {"issue_id": i["id"], "label_id": label}) for i in targets]
    checks += [answer(len(targets)), guard("issue_labels", len(targets))]
    return record(ENV, n, prompt, calls, checks, str(len(targets)), long=True,
                  template="help_wanted_sweep")


STALE = "Closing this as stale: it has had no activity for a long time. Reopen if still relevant."


def _stale_sweep(env, db, n, before="2025-06-01"):
    """Comment on and close every open issue not touched since a date."""
    def stale(repo):
        return rows(db, OPEN_ISSUES + " AND i.updated_at < ? ORDER BY i.updated_at, i.id",
                    repo["id"], f"{before}T00:00:00Z")
    repo = max(_repos(db), key=lambda r: (len(stale(r)), -r["id"]))
    targets, admin = stale(repo), _with(db, "admin", repo["id"])
    total = len(rows(db, OPEN_ISSUES, repo["id"]))
    calls = _search(repo["full_name"], total, sort="updated", order="asc")
    for i in targets:
        calls += [["add_issue_comment", {"actor": admin, "repo": repo["full_name"],
                                         "number": i["number"], "body": STALE}],
                  ["update_issue", {"actor": admin, "repo": repo["full_name"],
                                    "number": i["number"], "state": "closed",
                                    "state_reason": "not_planned"}]]
    prompt = (f"Acting as {admin}: clean up {repo['full_name']}. For every open issue whose last "
              f"update is before {before}, first comment exactly \"{STALE}\" and then close it as "
              "not planned. Tell me how many issues you closed.")
    checks = [values("issues", {"id": i["id"]}, {"state": "closed",
                                                 "state_reason": "not_planned"})
              for i in targets]
    checks += [added("comments", {"issue_id": i["id"], "author": admin, "body": STALE})
               for i in targets]
    checks += [answer(len(targets)), guard("issues", len(targets)),
               guard("comments", len(targets))]
    return record(ENV, n, prompt, calls, checks, str(len(targets)), long=True,
                  template="stale_sweep")


def _bug_triage(env, db, n):
    """Every open bug: onto the next milestone if on none, to the maintainer if unassigned."""
    def plan(repo):
        bugs = [i for i in rows(db, OPEN_ISSUES + " ORDER BY i.number", repo["id"])
                if "bug" in _labels(db, i["id"])]
        unplanned = [i for i in bugs if i["milestone_id"] is None]
        unassigned = [i for i in bugs if not rows(
            db, "SELECT 1 FROM issue_assignees WHERE issue_id = ?", i["id"])]
        return bugs, unplanned, unassigned
    repo = max(_repos(db), key=lambda r: (len(plan(r)[1]) + len(plan(r)[2]), -r["id"]))
    bugs, unplanned, unassigned = plan(repo)
    milestone = one(db, "SELECT * FROM milestones WHERE repo_id = ? AND state = 'open' AND "
                    "due_on IS NOT NULL ORDER BY due_on, id", repo["id"])
    owner, admin = _with(db, "maintain", repo["id"]), _with(db, "admin", repo["id"])
    calls = [["get_repository", {"repo": repo["full_name"]}],
             *_search(repo["full_name"], len(bugs), label="bug", limit=50)]
    for i in bugs:
        if i in unplanned:
            calls.append(["set_milestone", {"actor": admin, "repo": repo["full_name"],
                                            "number": i["number"],
                                            "milestone_id": milestone["id"]}])
        if i in unassigned:
            calls.append(["update_issue", {"actor": admin, "repo": repo["full_name"],
                                           "number": i["number"], "assignees": [owner]}])
    prompt = (f"Acting as {admin}: triage the open bugs of {repo['full_name']}. Every open issue "
              f"labelled bug that is on no milestone goes onto the open milestone with the "
              f"earliest due date, and every one without an assignee is assigned to {owner}. "
              "Don't touch bugs that already have a milestone or an assignee in that respect. "
              "When you are done, tell me how many changes you made in all (milestones set plus "
              "assignments).")
    checks = [values("issues", {"id": i["id"]}, {"milestone_id": milestone["id"]})
              for i in unplanned]
    checks += [added("issue_assignees", {"issue_id": i["id"], "login": owner})
               for i in unassigned]
    checks += [answer(len(unplanned) + len(unassigned)),
               guard("issues", len(unplanned)),
               guard("issue_assignees", len(unassigned))]
    return record(ENV, n, prompt, calls, checks, str(len(unplanned) + len(unassigned)),
                  long=True, template="bug_triage")


BUILDERS: tuple[Callable, ...] = (
    _count_label, _label_title_word, _merge_ready, _close_old_in_milestone,
    _assign_unassigned_bugs, _comment_failing, _rerun_failed, _public_stars, _busiest_assignee,
    _top_merger, _move_milestone, _help_wanted_sweep, _stale_sweep, _bug_triage,
)


def github_tasks() -> list[TaskRecord]:
    """The GitHub reference tasks, computed from the template database."""
    env, db = load(ENV)
    try:
        return [build(env, db, n) for n, build in enumerate(BUILDERS, start=1)]
    finally:
        db.close()

"""Success paths of the GitHub write tools: each call's effect is checked in the database or
through a read tool."""

from __future__ import annotations

import pytest

from agentworld.servers import Environment, Session
from agentworld.servers.envs.github import DEFINITION
from tests.servers.envs.rule_harness import ok
from tests.servers.envs.test_github import (
    WEB,
    open_issue,
    pull_blocked_by,
    pull_with_state,
    repo_id,
    user_with,
    writer_other_than,
)


@pytest.fixture(scope="module")
def env() -> Environment:
    return Environment(DEFINITION)


@pytest.fixture
def session(env):
    sess = Session(env, seed=0)
    yield sess
    sess.close()


def _issue_row(session, repo, number):
    return session.db.execute("SELECT * FROM issues WHERE repo_id = ? AND number = ?",
                              (repo_id(session, repo), number)).fetchone()


def test_create_issue_takes_the_next_shared_number(session):
    before = session.db.execute("SELECT MAX(number) FROM issues WHERE repo_id = ?",
                                (repo_id(session, WEB),)).fetchone()[0]
    triager, writer = user_with(session, WEB, "triage"), user_with(session, WEB, "write")
    issue = ok(session.call("create_issue", {
        "actor": triager, "repo": WEB, "title": "Search bar drops the last character",
        "labels": ["Bug", "good first issue"], "assignees": [writer], "milestone_id": 2}))
    issue = issue["issue"]
    assert issue["number"] == before + 1
    assert issue["labels"] == ["bug", "good first issue"] and issue["assignees"] == [writer]
    assert issue["milestone"]["title"] == "v1.2" and issue["author"] == triager
    row = _issue_row(session, WEB, before + 1)
    assert (row["state"], row["kind"], row["created_at"]) == ("open", "issue",
                                                              session.ctx.clock.iso())


def test_update_issue_close_and_reopen(session):
    admin, number = user_with(session, WEB, "admin"), open_issue(session)
    closed = ok(session.call("update_issue", {"actor": admin, "repo": WEB, "number": number,
                                              "state": "closed",
                                              "state_reason": "not_planned"}))["issue"]
    assert (closed["state"], closed["state_reason"], closed["closed_by"]) == (
        "closed", "not_planned", admin)
    assert closed["closed_at"] == session.ctx.clock.iso()
    reopened = ok(session.call("update_issue", {"actor": admin, "repo": WEB, "number": number,
                                                "state": "open"}))["issue"]
    assert (reopened["state"], reopened["state_reason"], reopened["closed_at"]) == (
        "open", "reopened", None)


def test_update_issue_edits_text_and_replaces_assignees(session):
    number = open_issue(session)
    author = _issue_row(session, WEB, number)["author"]
    writers = [user_with(session, WEB, "write"), user_with(session, WEB, "maintain")]
    ok(session.call("update_issue", {"actor": author, "repo": WEB, "number": number,
                                     "title": "Clearer title", "body": "More detail."}))
    triager = user_with(session, WEB, "triage")
    issue = ok(session.call("update_issue", {"actor": triager, "repo": WEB, "number": number,
                                             "assignees": writers}))["issue"]
    assert issue["title"] == "Clearer title" and issue["body"] == "More detail."
    assert issue["assignees"] == sorted(writers)
    cleared = ok(session.call("update_issue", {"actor": triager, "repo": WEB, "number": number,
                                               "assignees": []}))["issue"]
    assert cleared["assignees"] == []
    assert session.call("update_issue", {"actor": triager, "repo": WEB,
                                         "number": number}).code == "VALIDATION_ERROR"


def test_add_issue_comment_counts_and_touches(session):
    number = open_issue(session)
    reader = user_with(session, WEB, "read")
    comment = ok(session.call("add_issue_comment", {"actor": reader, "repo": WEB,
                                                    "number": number, "body": "Same here."}))
    issue = ok(session.call("get_issue", {"repo": WEB, "number": number}))["issue"]
    assert issue["comment_list"][-1] == comment["comment"]
    assert issue["updated_at"] == comment["comment"]["created_at"]


def test_labels_create_add_remove(session):
    admin, number = user_with(session, WEB, "admin"), open_issue(session)
    label = ok(session.call("create_label", {"actor": admin, "repo": WEB, "name": "a11y",
                                             "color": "C5DEF5"}))["label"]
    assert label == {"name": "a11y", "color": "c5def5", "description": ""}
    triager = user_with(session, WEB, "triage")
    added = ok(session.call("add_labels", {"actor": triager, "repo": WEB, "number": number,
                                           "labels": ["A11Y", "a11y", "security"]}))
    assert {"a11y", "security"} <= set(added["labels"])
    again = ok(session.call("add_labels", {"actor": triager, "repo": WEB, "number": number,
                                           "labels": ["a11y"]}))
    assert again["labels"] == added["labels"]
    removed = ok(session.call("remove_label", {"actor": triager, "repo": WEB, "number": number,
                                               "label": "A11y"}))
    assert "a11y" not in removed["labels"]
    missing = session.call("remove_label", {"actor": triager, "repo": WEB, "number": number,
                                            "label": "a11y"})
    assert missing.code == "NOT_FOUND"
    unknown = session.call("add_labels", {"actor": triager, "repo": WEB, "number": number,
                                          "labels": ["no-such-label"]})
    assert unknown.code == "NOT_FOUND"


def test_set_and_clear_milestone(session):
    triager, number = user_with(session, WEB, "triage"), open_issue(session)
    set_ = ok(session.call("set_milestone", {"actor": triager, "repo": WEB, "number": number,
                                             "milestone_id": 3}))
    assert set_["milestone"]["title"] == "v1.3"
    assert _issue_row(session, WEB, number)["milestone_id"] == 3
    cleared = ok(session.call("set_milestone", {"actor": triager, "repo": WEB,
                                                "number": number, "milestone_id": None}))
    assert cleared["milestone"] is None
    assert _issue_row(session, WEB, number)["milestone_id"] is None


def test_create_pull_request_queues_missing_required_checks(session):
    writer = user_with(session, WEB, "write")
    pull = ok(session.call("create_pull_request", {
        "actor": writer, "repo": WEB, "title": "Back-merge release/1.2",
        "head": "release/1.2", "base": "main", "draft": True}))["pull_request"]
    assert pull["state"] == "open" and pull["draft"] and pull["mergeable_state"] == "draft"
    assert {c["state"] for c in pull["required_checks"]} == {"pending"}
    runs = ok(session.call("list_check_runs", {"repo": WEB, "pull_number": pull["number"],
                                               "status": "queued"}))
    assert {r["name"] for r in runs["check_runs"]} == {"build", "lint", "test"}


def test_review_then_merge_closes_linked_issue(session):
    repo, number, pull = pull_with_state(session, "clean")
    admin = user_with(session, repo, "admin")
    body = ok(session.call("get_issue", {"repo": repo, "number": number}))["issue"]["body"]
    result = ok(session.call("merge_pull_request", {"actor": admin, "repo": repo,
                                                    "number": number, "sha": pull["head_sha"],
                                                    "merge_method": "squash"}))
    after = ok(session.call("get_pull_request", {"repo": repo, "number": number}))
    after = after["pull_request"]
    assert (after["state"], after["merged_by"], after["merge_commit_sha"]) == (
        "merged", admin, result["sha"])
    base = session.db.execute("SELECT head_sha FROM branches WHERE repo_id = ? AND name = ?",
                              (repo_id(session, repo), pull["base"])).fetchone()[0]
    assert base == result["sha"]
    if body.startswith("Closes #"):
        linked = int(body.split("#")[1].split(".")[0])
        assert result["closed_issues"] == [linked]
        issue = ok(session.call("get_issue", {"repo": repo, "number": linked}))["issue"]
        assert (issue["state"], issue["closed_by"]) == ("closed", admin)


def test_approval_unblocks_merge(session):
    repo, number, pull = pull_blocked_by(session, "1 approving")
    reviewer = writer_other_than(session, repo, pull["author"])
    changes = ok(session.call("submit_review", {"actor": reviewer, "repo": repo,
                                                "number": number, "event": "REQUEST_CHANGES",
                                                "body": "Please add a test."}))
    assert changes["review"]["state"] == "CHANGES_REQUESTED"
    blocked = ok(session.call("get_pull_request", {"repo": repo, "number": number}))
    assert blocked["pull_request"]["changes_requested_by"] == [reviewer]
    ok(session.call("submit_review", {"actor": reviewer, "repo": repo, "number": number,
                                      "event": "APPROVE"}))
    ready = ok(session.call("get_pull_request", {"repo": repo, "number": number}))
    assert ready["pull_request"]["merge_blockers"] == []
    admin = user_with(session, repo, "admin")
    method = ok(session.call("get_repository", {"repo": repo}))["repository"]
    merged = ok(session.call("merge_pull_request", {
        "actor": admin, "repo": repo, "number": number,
        "merge_method": method["allowed_merge_methods"][0]}))
    assert merged["merged"] is True


def test_rerun_supersedes_and_blocks_until_ci_reports(session):
    repo, number, pull = pull_with_state(session, "clean")
    runs = ok(session.call("list_check_runs", {"repo": repo, "pull_number": number}))
    target = next(r for r in runs["check_runs"] if r["name"] == pull["required_checks"][0]["name"])
    new = ok(session.call("rerun_check_run", {"actor": user_with(session, repo, "write"),
                                              "repo": repo, "check_run_id": target["id"]}))
    assert new["check_run"]["status"] == "queued" and new["check_run"]["id"] > target["id"]
    every = ok(session.call("list_check_runs", {"repo": repo, "pull_number": number,
                                                "latest_only": False, "limit": 100}))
    assert every["total"] == runs["total"] + 1
    after = ok(session.call("get_pull_request", {"repo": repo, "number": number}))
    assert after["pull_request"]["mergeable_state"] == "blocked"


def test_close_and_reopen_pull_request(session):
    repo, number, pull = pull_with_state(session, "clean")
    admin = user_with(session, repo, "admin")
    closed = ok(session.call("update_issue", {"actor": admin, "repo": repo, "number": number,
                                              "state": "closed"}))["issue"]
    assert closed["state_reason"] is None
    got = ok(session.call("get_pull_request", {"repo": repo, "number": number}))
    assert got["pull_request"]["state"] == "closed"
    reopened = ok(session.call("update_issue", {"actor": admin, "repo": repo, "number": number,
                                                "state": "open"}))["issue"]
    assert reopened["state"] == "open"
    got = ok(session.call("get_pull_request", {"repo": repo, "number": number}))
    assert got["pull_request"]["state"] == "open"

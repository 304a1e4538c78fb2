"""Every business rule of the GitHub environment has a breaker that trips it.

Each breaker finds a seeded situation (or sets one up with successful calls) and returns the
call that must be refused with the rule's code, leaving the database unchanged.
"""

from __future__ import annotations

import pytest

from agentworld.servers import Environment, Session
from agentworld.servers.envs.github import DEFINITION
from tests.servers.envs.rule_harness import assert_every_rule_covered, check_breaker, ok
from tests.servers.envs.test_github import (
    WEB,
    merged_pull,
    open_issue,
    open_pulls,
    pull_blocked_by,
    pull_with_state,
    repo_id,
    user_with,
    writer_other_than,
)

ARCHIVED = "harborline/legacy-dashboard"


@pytest.fixture(scope="module")
def env() -> Environment:
    return Environment(DEFINITION)


def _admin(session: Session, repo: str = WEB) -> str:
    return user_with(session, repo, "admin")


def _milestone(session: Session, repo: str, state: str) -> int:
    return session.db.execute("SELECT id FROM milestones WHERE repo_id = ? AND state = ? "
                              "ORDER BY id", (repo_id(session, repo), state)).fetchone()[0]


def repo_role_required(session):
    return "create_label", {"actor": user_with(session, WEB, "triage"), "repo": WEB,
                            "name": "needs-design", "color": "5319e7"}


def archived_read_only(session):
    number = session.db.execute("SELECT MIN(number) FROM issues WHERE repo_id = ?",
                                (repo_id(session, ARCHIVED),)).fetchone()[0]
    owner = session.db.execute("SELECT login FROM org_members WHERE role = 'owner'").fetchone()[0]
    return "add_issue_comment", {"actor": owner, "repo": ARCHIVED, "number": number,
                                 "body": "Is this still relevant?"}


def label_name_unique(session):
    return "create_label", {"actor": _admin(session), "repo": WEB, "name": "BUG",
                            "color": "ff0000"}


def milestone_same_repo(session):
    return "set_milestone", {"actor": _admin(session), "repo": WEB,
                             "number": open_issue(session),
                             "milestone_id": _milestone(session, "harborline/api", "open")}


def milestone_open(session):
    return "set_milestone", {"actor": _admin(session), "repo": WEB,
                             "number": open_issue(session),
                             "milestone_id": _milestone(session, WEB, "closed")}


def state_reason_matches_state(session):
    number = open_issue(session)
    ok(session.call("update_issue", {"actor": _admin(session), "repo": WEB, "number": number,
                                     "state": "closed"}))
    return "update_issue", {"actor": _admin(session), "repo": WEB, "number": number,
                            "state": "open", "state_reason": "not_planned"}


def assignee_assignable(session):
    return "update_issue", {"actor": _admin(session), "repo": WEB,
                            "number": open_issue(session),
                            "assignees": [user_with(session, WEB, "none")]}


def locked_conversation(session):
    full_name, number = session.db.execute(
        "SELECT r.full_name, i.number FROM issues i JOIN repos r ON r.id = i.repo_id "
        "WHERE i.locked = 1 AND r.archived = 0 ORDER BY i.id").fetchone()
    return "add_issue_comment", {"actor": user_with(session, full_name, "read"),
                                 "repo": full_name, "number": number, "body": "Any update?"}


def pr_branches_valid(session):
    return "create_pull_request", {"actor": _admin(session), "repo": WEB, "title": "WIP",
                                   "head": "feature/does-not-exist"}


def one_open_pr_per_branch_pair(session):
    repo, number, pull = pull_with_state(session, "clean")
    return "create_pull_request", {"actor": _admin(session, repo), "repo": repo,
                                   "title": "Duplicate", "head": pull["head"],
                                   "base": pull["base"]}


def merged_pr_final(session):
    repo, number, _ = merged_pull(session)
    return "update_issue", {"actor": _admin(session, repo), "repo": repo, "number": number,
                            "state": "open"}


def no_self_review(session):
    repo, number, pull = pull_blocked_by(session, "1 approving")
    return "submit_review", {"actor": pull["author"], "repo": repo, "number": number,
                             "event": "APPROVE"}


def review_body_required(session):
    repo, number, pull = pull_blocked_by(session, "1 approving")
    return "submit_review", {"actor": writer_other_than(session, repo, pull["author"]),
                             "repo": repo, "number": number, "event": "REQUEST_CHANGES"}


def review_open_pr_only(session):
    repo, number, author = merged_pull(session)
    return "submit_review", {"actor": writer_other_than(session, repo, author), "repo": repo,
                             "number": number, "event": "APPROVE"}


def merge_open_only(session):
    repo, number, _ = merged_pull(session)
    return "merge_pull_request", {"actor": _admin(session, repo), "repo": repo,
                                  "number": number}


def draft_not_mergeable(session):
    repo, number, _ = pull_with_state(session, "draft")
    return "merge_pull_request", {"actor": _admin(session, repo), "repo": repo,
                                  "number": number}


def head_sha_guard(session):
    repo, number, _ = pull_with_state(session, "clean")
    return "merge_pull_request", {"actor": _admin(session, repo), "repo": repo,
                                  "number": number, "sha": "0" * 40}


def merge_method_allowed(session):
    repo, number, _ = pull_with_state(session, "clean")
    allowed = ok(session.call("get_repository", {"repo": repo}))["repository"]
    method = next(m for m in ("rebase", "merge", "squash")
                  if m not in allowed["allowed_merge_methods"])
    return "merge_pull_request", {"actor": _admin(session, repo), "repo": repo,
                                  "number": number, "merge_method": method}


def no_merge_conflicts(session):
    repo, number, _ = pull_with_state(session, "dirty")
    return "merge_pull_request", {"actor": _admin(session, repo), "repo": repo,
                                  "number": number, "merge_method": "squash"}


def _merge_blocked_by(session, prefix):
    repo, number, _ = pull_blocked_by(session, prefix)
    method = ok(session.call("get_repository", {"repo": repo}))["repository"]
    return "merge_pull_request", {"actor": _admin(session, repo), "repo": repo,
                                  "number": number,
                                  "merge_method": method["allowed_merge_methods"][0]}


def required_checks_pass(session):
    return _merge_blocked_by(session, "required status checks")


def changes_requested_blocks(session):
    return _merge_blocked_by(session, "changes requested")


def required_approvals(session):
    return _merge_blocked_by(session, "2 approving")


def rerun_completed_latest(session):
    repo, run_id = session.db.execute(
        "SELECT r.full_name, c.id FROM check_runs c JOIN repos r ON r.id = c.repo_id "
        "WHERE c.conclusion = 'failure' AND r.archived = 0 ORDER BY c.id").fetchone()
    actor = writer_other_than(session, repo)
    ok(session.call("rerun_check_run", {"actor": actor, "repo": repo, "check_run_id": run_id}))
    return "rerun_check_run", {"actor": actor, "repo": repo, "check_run_id": run_id}


def test_pending_check_cannot_be_rerun(env):
    session = Session(env)
    repo, run_id = session.db.execute(
        "SELECT r.full_name, c.id FROM check_runs c JOIN repos r ON r.id = c.repo_id "
        "WHERE c.status = 'in_progress' AND r.archived = 0 ORDER BY c.id").fetchone()
    result = session.call("rerun_check_run", {"actor": writer_other_than(session, repo),
                                              "repo": repo, "check_run_id": run_id})
    assert result.code == "CONFLICT" and "in_progress" in result.error["message"]


BREAKERS = {
    "repo-role-required": repo_role_required,
    "archived-read-only": archived_read_only,
    "label-name-unique": label_name_unique,
    "milestone-same-repo": milestone_same_repo,
    "milestone-open": milestone_open,
    "state-reason-matches-state": state_reason_matches_state,
    "assignee-assignable": assignee_assignable,
    "locked-conversation": locked_conversation,
    "pr-branches-valid": pr_branches_valid,
    "one-open-pr-per-branch-pair": one_open_pr_per_branch_pair,
    "merged-pr-final": merged_pr_final,
    "no-self-review": no_self_review,
    "review-body-required": review_body_required,
    "review-open-pr-only": review_open_pr_only,
    "merge-open-only": merge_open_only,
    "draft-not-mergeable": draft_not_mergeable,
    "head-sha-guard": head_sha_guard,
    "merge-method-allowed": merge_method_allowed,
    "no-merge-conflicts": no_merge_conflicts,
    "required-checks-pass": required_checks_pass,
    "changes-requested-blocks": changes_requested_blocks,
    "required-approvals": required_approvals,
    "rerun-completed-latest": rerun_completed_latest,
}


def test_every_rule_has_a_breaker(env):
    assert_every_rule_covered(env, BREAKERS)


@pytest.mark.parametrize("rule_id", sorted(BREAKERS))
def test_breaker_is_refused(env, rule_id):
    check_breaker(env, rule_id, BREAKERS[rule_id])


# --- the same rules, from other angles ------------------------------------------------------

@pytest.fixture
def session(env):
    sess = Session(env, seed=0)
    yield sess
    sess.close()


def test_read_only_member_cannot_close_someone_elses_issue(session):
    reader = user_with(session, WEB, "read")
    number = session.db.execute(
        "SELECT number FROM issues WHERE repo_id = ? AND kind = 'issue' AND state = 'open' "
        "AND author <> ? ORDER BY number", (repo_id(session, WEB), reader)).fetchone()[0]
    result = session.call("update_issue", {"actor": reader, "repo": WEB, "number": number,
                                           "state": "closed"})
    assert result.code == "FORBIDDEN"
    mine = ok(session.call("create_issue", {"actor": reader, "repo": WEB, "title": "Typo"}))
    closed = ok(session.call("update_issue", {"actor": reader, "repo": WEB,
                                              "number": mine["issue"]["number"],
                                              "state": "closed"}))
    assert closed["issue"]["state_reason"] == "completed"


def test_outsider_cannot_open_issues_in_private_repo_but_can_in_public(session):
    outsider = user_with(session, WEB, "none")
    denied = session.call("create_issue", {"actor": outsider, "repo": WEB, "title": "Hello"})
    assert denied.code == "FORBIDDEN"
    ok(session.call("create_issue", {"actor": outsider, "repo": "harborline/docs",
                                     "title": "Typo in the quickstart guide"}))


def test_stale_approvals_do_not_count(session):
    for _repo, _number, pull in _stale(session):
        assert pull["approvals_on_head"] == []
        assert any(not r["on_current_head"] for r in pull["reviews"])
        return
    raise AssertionError("no seeded pull request with only stale approvals")


def _stale(session):
    for repo, number, pull in open_pulls(session):
        approvals = [r for r in pull["reviews"] if r["state"] == "APPROVED"]
        if approvals and not any(r["on_current_head"] for r in approvals):
            yield repo, number, pull


def test_non_writer_approval_does_not_count(session):
    repo, number, pull = pull_blocked_by(session, "1 approving")
    triager = user_with(session, repo, "triage")
    review = ok(session.call("submit_review", {"actor": triager, "repo": repo,
                                               "number": number, "event": "APPROVE"}))
    assert review["review"]["reviewer_can_write"] is False
    after = ok(session.call("get_pull_request", {"repo": repo, "number": number}))
    assert after["pull_request"]["merge_blockers"] == pull["merge_blockers"]

"""The GitHub environment: definition, seed data, example calls, read tools, paging, determinism.

Rule breakers live in test_github_rules.py and write-tool success paths in
test_github_tools.py; both use the seed lookups defined here.
"""

from __future__ import annotations

import re

import pytest

from agentworld.servers import Environment, Session
from agentworld.servers.envs.github import DEFINITION, EXAMPLE_CALLS
from tests.servers.envs.rule_harness import ok

WEB = "harborline/web-app"


@pytest.fixture(scope="module")
def env() -> Environment:
    return Environment(DEFINITION)


@pytest.fixture
def session(env):
    sess = Session(env, seed=0)
    yield sess
    sess.close()


# --- seed lookups shared by the other GitHub test files -------------------------------------

def repo_id(session: Session, full_name: str) -> int:
    return session.db.execute("SELECT id FROM repos WHERE full_name = ?",
                              (full_name,)).fetchone()[0]


def user_with(session: Session, full_name: str, level: str) -> str:
    """A login whose effective role on the repository is exactly ``level``."""
    rid = repo_id(session, full_name)
    if level == "read":  # an organization member who is not a collaborator of the repository
        sql = ("SELECT login FROM org_members WHERE role = 'member' AND login NOT IN "
               "(SELECT login FROM collaborators WHERE repo_id = ?) ORDER BY login")
    elif level == "none":  # an outside user with no grant on the repository
        sql = ("SELECT login FROM accounts WHERE type = 'User' AND login NOT IN "
               "(SELECT login FROM org_members) AND login NOT IN "
               "(SELECT login FROM collaborators WHERE repo_id = ?) ORDER BY login")
    else:
        sql = (f"SELECT login FROM collaborators WHERE repo_id = ? AND permission = '{level}' "
               "ORDER BY login")
    return session.db.execute(sql, (rid,)).fetchone()[0]


def open_pulls(session: Session):
    """(repo, number, detail) of every open pull request in a non-archived repository."""
    rows = session.db.execute(
        "SELECT r.full_name, i.number FROM issues i JOIN repos r ON r.id = i.repo_id "
        "JOIN pulls p ON p.issue_id = i.id WHERE p.state = 'open' AND r.archived = 0 "
        "ORDER BY r.id, i.number").fetchall()
    for full_name, number in rows:
        detail = ok(session.call("get_pull_request", {"repo": full_name, "number": number}))
        yield full_name, number, detail["pull_request"]


def pull_blocked_by(session: Session, prefix: str):
    """An open, non-draft pull request whose only merge blocker starts with ``prefix``."""
    for full_name, number, pull in open_pulls(session):
        blockers = pull["merge_blockers"]
        if not pull["draft"] and len(blockers) == 1 and blockers[0].startswith(prefix):
            return full_name, number, pull
    raise AssertionError(f"no seeded pull request blocked only by {prefix!r}")


def pull_with_state(session: Session, mergeable_state: str):
    for full_name, number, pull in open_pulls(session):
        if pull["mergeable_state"] == mergeable_state:
            return full_name, number, pull
    raise AssertionError(f"no seeded pull request in state {mergeable_state}")


def merged_pull(session: Session) -> tuple[str, int, str]:
    """(repo, number, author) of a merged pull request written by a person, not a bot."""
    return tuple(session.db.execute(
        "SELECT r.full_name, i.number, i.author FROM issues i JOIN repos r ON r.id = i.repo_id "
        "JOIN pulls p ON p.issue_id = i.id WHERE p.state = 'merged' AND r.archived = 0 "
        "AND i.author NOT LIKE '%[bot]' ORDER BY i.id LIMIT 1").fetchone())


def writer_other_than(session: Session, full_name: str, *logins: str) -> str:
    rid = repo_id(session, full_name)
    marks = ", ".join("?" for _ in logins) or "''"
    return session.db.execute(
        f"SELECT login FROM collaborators WHERE repo_id = ? AND permission = 'write' "
        f"AND login NOT IN ({marks}) ORDER BY login", (rid, *logins)).fetchone()[0]


def open_issue(session: Session, full_name: str = WEB) -> int:
    return session.db.execute(
        "SELECT number FROM issues WHERE repo_id = ? AND kind = 'issue' AND state = 'open' "
        "AND locked = 0 ORDER BY number", (repo_id(session, full_name),)).fetchone()[0]


# --- definition and seed --------------------------------------------------------------------

def test_definition_has_enough_tools_and_rules(env):
    assert len(env.tools) >= 12
    assert len(env.manifest.rules) >= 8
    for spec in env.tools:
        assert len(spec.description) > 60, spec.name


def test_seed_sizes_and_template_budget(env, session):
    counts = {t: session.db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
              for t in ("accounts", "repos", "issues", "pulls", "reviews", "check_runs",
                        "labels", "milestones", "comments")}
    assert counts["repos"] == 13
    assert 28 <= counts["accounts"] - 2 <= 32  # people, without the organization and the bot
    assert counts["issues"] - counts["pulls"] >= 400
    assert counts["pulls"] >= 100
    assert counts["reviews"] > 100 and counts["check_runs"] > 300
    assert env.template.size_bytes < 1_000_000


def test_seed_timestamps_precede_epoch_and_are_ordered(session):
    epoch = DEFINITION.manifest.epoch
    db = session.db
    assert db.execute("SELECT MAX(updated_at) FROM issues").fetchone()[0] < epoch
    assert db.execute("SELECT COUNT(*) FROM issues WHERE closed_at < created_at "
                      "OR updated_at < created_at").fetchone()[0] == 0
    assert db.execute("SELECT COUNT(*) FROM pulls p JOIN issues i ON i.id = p.issue_id "
                      "WHERE p.merged_at < i.created_at").fetchone()[0] == 0
    assert db.execute("SELECT COUNT(*) FROM comments c JOIN issues i ON i.id = c.issue_id "
                      "WHERE c.created_at < i.created_at").fetchone()[0] == 0
    assert db.execute("SELECT MAX(submitted_at) FROM reviews").fetchone()[0] < epoch


def test_seed_covers_every_merge_situation(session):
    states = {pull["mergeable_state"] for _, _, pull in open_pulls(session)}
    assert {"clean", "blocked", "dirty", "draft"} <= states
    for prefix in ("required status checks", "changes requested", "1 approving", "2 approving"):
        pull_blocked_by(session, prefix)


# --- example calls and determinism ----------------------------------------------------------

def test_example_calls_all_succeed_and_cover_every_tool(env, session):
    for name, arguments in EXAMPLE_CALLS:
        result = session.call(name, arguments)
        assert result.ok, f"{name} failed: {result.error}"
    assert {name for name, _ in EXAMPLE_CALLS} == set(env.tools.names())


def _replay(env) -> tuple[list, str]:
    sess = Session(env, seed=3)
    try:
        outputs = [sess.call(name, args).payload() for name, args in EXAMPLE_CALLS]
        return outputs, sess.hash()
    finally:
        sess.close()


def test_template_is_rebuilt_identically(env):
    assert Environment(DEFINITION).template.hash == env.template.hash


def test_catalog_loads_github():
    from agentworld.servers import default_catalog

    loaded = default_catalog().load("github")
    assert loaded.manifest.id == "github" and len(loaded.tool_list()) == len(DEFINITION.tools)


def test_replay_is_deterministic(env):
    first, second = _replay(env), _replay(env)
    assert first == second
    assert first[1] != env.template.hash


def test_example_calls_leave_the_expected_state(session):
    for name, arguments in EXAMPLE_CALLS:
        ok(session.call(name, arguments))
    pull = ok(session.call("get_pull_request", {"repo": WEB, "number": 243}))["pull_request"]
    assert pull["state"] == "merged" and pull["merge_method"] == "squash"
    assert re.fullmatch(r"[0-9a-f]{40}", pull["merge_commit_sha"])
    fixed = ok(session.call("get_issue", {"repo": WEB, "number": 240}))["issue"]
    assert (fixed["state"], fixed["state_reason"]) == ("closed", "completed")
    dropped = ok(session.call("get_issue", {"repo": WEB, "number": 239}))["issue"]
    assert dropped["state_reason"] == "not_planned"


# --- read tools -----------------------------------------------------------------------------

def test_list_repositories_filters(session):
    public = ok(session.call("list_repositories", {"visibility": "public", "limit": 100}))
    assert public["total"] == len(public["repositories"]) >= 5
    assert all(r["visibility"] == "public" for r in public["repositories"])
    archived = ok(session.call("list_repositories", {"archived": True}))
    assert [r["full_name"] for r in archived["repositories"]] == ["harborline/legacy-dashboard"]
    found = ok(session.call("list_repositories", {"query": "terraform"}))
    assert [r["name"] for r in found["repositories"]] == ["infra"]


def test_get_repository_reports_protection(session):
    repo = ok(session.call("get_repository", {"repo": "harborline/api"}))["repository"]
    main = next(b for b in repo["branches"] if b["name"] == "main")
    assert main["protected"] and main["required_approvals"] == 2
    assert main["required_checks"] == ["build", "golangci-lint", "test"]
    assert repo["allowed_merge_methods"] == ["squash"]
    assert {m["title"] for m in repo["milestones"]} >= {"v3.4", "v3.5"}
    assert "bug" in {label["name"] for label in repo["labels"]}


def test_collaborator_permission_sources(session):
    owner = session.db.execute("SELECT login FROM org_members WHERE role = 'owner'").fetchone()[0]
    got = ok(session.call("get_collaborator_permission", {"repo": WEB, "login": owner}))
    assert got == {"login": owner, "permission": "admin", "source": "organization owner"}
    member = user_with(session, WEB, "read")
    got = ok(session.call("get_collaborator_permission", {"repo": WEB, "login": member}))
    assert (got["permission"], got["source"]) == ("read", "organization member")
    outsider = user_with(session, WEB, "none")
    got = ok(session.call("get_collaborator_permission", {"repo": WEB, "login": outsider}))
    assert got["permission"] == "none"
    got = ok(session.call("get_collaborator_permission",
                          {"repo": "harborline/cli", "login": outsider}))
    assert got["permission"] in ("read", "triage")


def test_search_issues_matches_every_word_and_filters(session):
    found = ok(session.call("search_issues", {"query": "crashes session", "state": "all",
                                              "limit": 100}))
    assert found["total"] >= 1
    for issue in found["issues"]:
        assert not issue["is_pull_request"]
        detail = ok(session.call("get_issue", {"repo": issue["repo"],
                                               "number": issue["number"]}))["issue"]
        text = (detail["title"] + detail["body"]).lower()
        assert "crashes" in text and "session" in text
    bugs = ok(session.call("search_issues", {"repo": WEB, "label": "BUG", "limit": 100}))
    assert bugs["total"] > 0
    assert all("bug" in i["labels"] and i["state"] == "open" for i in bugs["issues"])
    nobody = ok(session.call("search_issues", {"repo": WEB, "assignee": "none", "limit": 100}))
    assert all(i["assignees"] == [] for i in nobody["issues"])
    planned = ok(session.call("search_issues", {"milestone": "v1.2", "state": "all"}))
    assert all(i["milestone"]["title"] == "v1.2" for i in planned["issues"])


def test_search_sorts_and_includes_pull_requests_on_request(session):
    pulls = ok(session.call("search_issues", {"kind": "pull_request", "state": "all",
                                              "sort": "comments", "limit": 50}))
    assert all(i["is_pull_request"] for i in pulls["issues"])
    oldest = ok(session.call("search_issues", {"repo": WEB, "state": "all", "order": "asc",
                                               "limit": 5}))["issues"]
    stamps = [i["created_at"] for i in oldest]
    assert stamps == sorted(stamps)


@pytest.mark.parametrize("tool,arguments,key", [
    ("search_issues", {"state": "all"}, "issues"),
    ("list_repositories", {}, "repositories"),
    ("list_pull_requests", {"repo": WEB, "state": "all"}, "pull_requests"),
])
def test_cursor_walks_every_row_exactly_once(session, tool, arguments, key):
    seen, cursor, total = [], None, None
    while True:
        page = ok(session.call(tool, {**arguments, "limit": 7,
                                      **({"cursor": cursor} if cursor else {})}))
        total = page["total"]
        seen += [item.get("full_name") or (item["repo"], item["number"]) for item in page[key]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == total == len(set(seen))


def test_malformed_cursor_is_a_validation_error(session):
    result = session.call("search_issues", {"cursor": "abc"})
    assert result.code == "VALIDATION_ERROR"


def test_get_issue_returns_comments_and_pull_numbers(session):
    row = session.db.execute(
        "SELECT r.full_name, i.number, COUNT(c.id) FROM issues i JOIN repos r ON r.id = i.repo_id "
        "JOIN comments c ON c.issue_id = i.id GROUP BY i.id ORDER BY COUNT(c.id) DESC "
        "LIMIT 1").fetchone()
    issue = ok(session.call("get_issue", {"repo": row[0], "number": row[1]}))["issue"]
    assert issue["comments"] == len(issue["comment_list"]) == row[2]
    assert session.call("get_issue", {"repo": WEB, "number": 99999}).code == "NOT_FOUND"


def test_list_pull_requests_filters(session):
    merged = ok(session.call("list_pull_requests", {"repo": WEB, "state": "merged",
                                                    "limit": 100}))
    assert merged["total"] > 0 and all(p["merged_at"] for p in merged["pull_requests"])
    drafts = ok(session.call("list_pull_requests", {"repo": "harborline/api", "draft": True,
                                                    "state": "all", "limit": 100}))
    assert all(p["draft"] for p in drafts["pull_requests"])


def test_get_pull_request_explains_blockers(session):
    repo, number, pull = pull_with_state(session, "dirty")
    assert any("conflicts" in b for b in pull["merge_blockers"])
    repo, number, pull = pull_with_state(session, "clean")
    assert pull["merge_blockers"] == []
    assert len(pull["approvals_on_head"]) >= pull["required_approvals"]
    assert all(c["state"] == "passing" for c in pull["required_checks"])


def test_list_check_runs_by_pull_and_ref(session):
    repo, number, pull = pull_blocked_by(session, "required status checks")
    runs = ok(session.call("list_check_runs", {"repo": repo, "pull_number": number}))
    assert runs["head_sha"] == pull["head_sha"]
    assert {r["name"] for r in runs["check_runs"]} >= {c["name"] for c in pull["required_checks"]}
    by_sha = ok(session.call("list_check_runs", {"repo": repo, "ref": pull["head_sha"]}))
    assert by_sha["check_runs"] == runs["check_runs"]
    both = session.call("list_check_runs", {"repo": repo, "pull_number": number, "ref": "main"})
    assert both.code == "VALIDATION_ERROR"

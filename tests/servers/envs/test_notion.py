"""Notion environment: every business rule has a breaker; the example tour and replays hold."""

from __future__ import annotations

import pytest

from agentworld.servers import Environment, Session
from agentworld.servers.envs.notion import DEFINITION, EXAMPLE_CALLS
from agentworld.servers.envs.notion.seeder import sid
from tests.servers.envs.rule_harness import assert_every_rule_covered, check_breaker, ok

ENV = Environment(DEFINITION)


def usr(key: str) -> str:
    return sid("usr", key)


def pg(key: str) -> str:
    return sid("pg", key)


ROADMAP = sid("db", "roadmap")


def _max_append(session):
    return "append_blocks", {"actor_id": usr("sre1"), "parent_id": pg("runbook-0"),
                             "children": [{"type": "paragraph", "text": f"Line {i}"}
                                          for i in range(101)]}


def _reply_after_resolve(session):
    ok(session.call("resolve_comment", {"actor_id": usr("pm_billing"),
                                        "discussion_id": sid("dsc", "billing-spec-alerts")}))
    return "add_comment", {"actor_id": usr("fe1"), "body": "One more thought on alerts.",
                           "discussion_id": sid("dsc", "billing-spec-alerts")}


def _edit_after_archive(session):
    ok(session.call("archive_page", {"actor_id": usr("sre1"), "page_id": pg("runbooks")}))
    # The runbook itself is not archived, but it now sits in the trash with its parent.
    return "append_blocks", {"actor_id": usr("sre1"), "parent_id": pg("runbook-2"),
                             "children": [{"type": "paragraph", "text": "Check Stripe too."}]}


BREAKERS = {
    "guest-no-top-level-pages": lambda s: (
        "create_page", {"actor_id": usr("guest_design"), "title": "Brand review notes"}),
    "view-or-comment-cannot-edit": lambda s: (
        "update_page", {"actor_id": usr("be1"), "page_id": pg("okr-q1-2026"),
                        "title": "Q1 2026 OKRs (draft)"}),
    "comment-needs-can-comment": lambda s: (
        "add_comment", {"actor_id": usr("guest_audit"), "page_id": pg("access-review"),
                        "body": "Please attach the export."}),
    "unshared-pages-are-invisible": lambda s: (
        "get_page", {"actor_id": usr("be1"), "page_id": pg("comp-bands")}),
    "archived-pages-are-read-only": _edit_after_archive,
    "restore-needs-live-ancestors": lambda s: (
        "restore_page", {"actor_id": usr("cto"), "page_id": pg("legacy-vpn")}),
    "archive-state-must-change": lambda s: (
        "archive_page", {"actor_id": usr("pm_growth"), "page_id": pg("meeting-3")}),
    "property-values-match-schema": lambda s: (
        "create_database_row", {"actor_id": usr("pm_growth"), "database_id": ROADMAP,
                                "properties": {"Name": "Dark mode", "Status": "Done"}}),
    "row-needs-title": lambda s: (
        "create_database_row", {"actor_id": usr("pm_growth"), "database_id": ROADMAP,
                                "properties": {"Status": "Planned", "Priority": "P1"}}),
    "children-only-under-container-blocks": lambda s: (
        "append_blocks", {"actor_id": usr("sre1"), "parent_id": sid("blk", "runbook-0/1"),
                          "children": [{"type": "paragraph", "text": "Nested under a heading"}]}),
    "block-fields-match-type": lambda s: (
        "append_blocks", {"actor_id": usr("sre1"), "parent_id": pg("runbook-0"),
                          "children": [{"type": "paragraph", "text": "Done", "checked": True}]}),
    "max-100-blocks-per-append": _max_append,
    "no-move-under-descendant": lambda s: (
        "move_page", {"actor_id": usr("cto"), "page_id": pg("eng-wiki"),
                      "new_parent_page_id": pg("runbook-1")}),
    "rows-stay-in-database": lambda s: (
        "move_page", {"actor_id": usr("vp_product"), "page_id": pg("roadmap-0"),
                      "new_parent_page_id": pg("product-home")}),
    "only-full-access-shares": lambda s: (
        "share_page", {"actor_id": usr("be1"), "page_id": pg("runbook-0"),
                       "member_id": usr("guest_audit"), "level": "can_view"}),
    "owner-keeps-full-access": lambda s: (
        "share_page", {"actor_id": usr("people_lead"), "page_id": pg("people-ops"),
                       "member_id": usr("ceo"), "level": "can_view"}),
    "resolved-threads-take-no-replies": _reply_after_resolve,
    "resolve-state-must-change": lambda s: (
        "resolve_comment", {"actor_id": usr("ceo"), "discussion_id": sid("dsc", "okr-q1-sso")}),
    "filters-match-property-type": lambda s: (
        "query_database", {"actor_id": usr("pm_growth"), "database_id": ROADMAP,
                           "filters": [{"property": "Priority", "operator": "greater_than",
                                        "value": "P2"}]}),
    "guests-cannot-list-members": lambda s: (
        "list_members", {"actor_id": usr("guest_recruit")}),
}


def test_every_rule_has_a_breaker():
    assert_every_rule_covered(ENV, BREAKERS)


@pytest.mark.parametrize("rule_id", sorted(BREAKERS))
def test_breaker(rule_id):
    check_breaker(ENV, rule_id, BREAKERS[rule_id])


# More ways to break some rules, each through another tool or path.
EXTRA_BREAKS = [
    ("FORBIDDEN", "move_page", {"actor_id": usr("guest_design"), "page_id": pg("design-0")}),
    ("FORBIDDEN", "append_blocks", {"actor_id": usr("guest_design"),
                                    "parent_id": pg("design-1"),
                                    "children": [{"type": "paragraph", "text": "Hi"}]}),
    ("FORBIDDEN", "update_database_row_properties", {
        "actor_id": usr("guest_recruit"), "page_id": pg("candidate-0"),
        "properties": {"Rating": 5}}),
    ("NOT_FOUND", "resolve_comment", {"actor_id": usr("guest_audit"),
                                      "discussion_id": sid("dsc", "rfc-replicas-cost")}),
    ("NOT_FOUND", "query_database", {"actor_id": usr("be1"),
                                     "database_id": sid("db", "candidates")}),
    ("NOT_FOUND", "get_block_children", {"actor_id": usr("guest_design"),
                                         "parent_id": pg("runbook-0")}),
    ("NOT_FOUND", "get_page", {"actor_id": usr("recruiter"), "page_id": pg("comp-bands")}),
    ("PRECONDITION_FAILED", "update_page", {"actor_id": usr("cto"),
                                            "page_id": pg("legacy-laptop"), "title": "Laptop"}),
    ("PRECONDITION_FAILED", "add_comment", {"actor_id": usr("pm_growth"),
                                            "page_id": pg("meeting-3"), "body": "Late note"}),
    ("CONFLICT", "restore_page", {"actor_id": usr("cto"), "page_id": pg("legacy-laptop")}),
    ("VALIDATION_ERROR", "create_database_row", {
        "actor_id": usr("pm_growth"), "database_id": ROADMAP,
        "properties": {"Name": "X", "Effort (weeks)": "three"}}),
    ("VALIDATION_ERROR", "create_database_row", {
        "actor_id": usr("pm_growth"), "database_id": ROADMAP,
        "properties": {"Name": "X", "Owner": ["usr_0000000000"]}}),
    ("VALIDATION_ERROR", "update_database_row_properties", {
        "actor_id": usr("pm_growth"), "page_id": pg("roadmap-1"),
        "properties": {"Tags": ["urgent"]}}),
    ("VALIDATION_ERROR", "update_database_row_properties", {
        "actor_id": usr("pm_growth"), "page_id": pg("roadmap-1"), "properties": {"Name": " "}}),
    ("VALIDATION_ERROR", "update_block", {"actor_id": usr("sre1"),
                                          "block_id": sid("blk", "runbook-0/0"),
                                          "language": "python"}),
    ("VALIDATION_ERROR", "append_blocks", {"actor_id": usr("sre1"), "parent_id": pg("runbook-0"),
                                           "children": [{"type": "divider", "children": [
                                               {"type": "paragraph", "text": "x"}]}]}),
    ("VALIDATION_ERROR", "query_database", {"actor_id": usr("pm_growth"), "database_id": ROADMAP,
                                            "filters": [{"property": "Status",
                                                         "operator": "equals",
                                                         "value": "Done"}]}),
    ("VALIDATION_ERROR", "search", {"actor_id": usr("pm_growth"), "cursor": "abc"}),
]


@pytest.mark.parametrize(("code", "tool", "args"), EXTRA_BREAKS,
                         ids=[f"{t}-{c}" for c, t, _ in EXTRA_BREAKS])
def test_more_refusals(code, tool, args):
    session = Session(ENV, seed=3)
    before = session.hash()
    result = session.call(tool, args)
    assert result.code == code, result.error
    assert session.hash() == before


def test_example_calls_cover_every_tool_and_succeed():
    assert {name for name, _ in EXAMPLE_CALLS} == set(ENV.tools.names())
    session = Session(ENV, seed=0)
    for name, args in EXAMPLE_CALLS:
        result = session.call(name, args)
        assert result.ok, (name, result.error)


def _replay(seed: int):
    session = Session(ENV, seed=seed)
    outputs = [session.call(name, args).payload() for name, args in EXAMPLE_CALLS]
    return outputs, session.hash()


def test_same_seed_same_outputs_and_hash():
    assert _replay(0) == _replay(0)


def test_template_is_realistic_and_small():
    session = Session(ENV)

    def count(table: str) -> int:
        return session.db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]

    assert count("members") == 25
    assert 200 <= count("pages") <= 320
    assert 1500 <= count("blocks") <= 3000
    rows = [r[0] for r in session.db.execute(
        "SELECT COUNT(*) FROM pages WHERE parent_type = 'database' GROUP BY parent_database_id")]
    assert len(rows) == 3 and all(40 <= n <= 150 for n in rows)
    assert ENV.template.size_bytes < 1_000_000


def test_seed_dates_are_consistent():
    db = Session(ENV).db

    def scalar(sql: str):
        return db.execute(sql).fetchone()[0]

    for table in ("pages", "blocks"):
        assert scalar(f"SELECT MAX(last_edited_at) FROM {table}") < "2026-03-02"
        assert scalar(f"SELECT COUNT(*) FROM {table} WHERE last_edited_at < created_at") == 0
    assert scalar("SELECT COUNT(*) FROM pages p JOIN members m ON m.id = p.created_by "
                  "WHERE p.created_at < m.joined_at") == 0
    assert scalar("SELECT COUNT(*) FROM comments c JOIN discussions d ON d.id = c.discussion_id "
                  "JOIN pages p ON p.id = d.page_id WHERE c.created_at < p.created_at") == 0
    assert scalar("SELECT COUNT(*) FROM blocks b JOIN pages p ON p.id = b.page_id "
                  "WHERE b.last_edited_at > p.last_edited_at") == 0


def test_every_seeded_commenter_may_comment_where_they_wrote():
    session = Session(ENV)
    pairs = session.db.execute("SELECT DISTINCT c.author_id, d.page_id FROM comments c "
                               "JOIN discussions d ON d.id = c.discussion_id").fetchall()
    for author, page in pairs:
        result = session.call("get_page", {"actor_id": author, "page_id": page})
        assert result.ok and result.data["access"] in ("can_comment", "can_edit",
                                                       "full_access"), (author, page)

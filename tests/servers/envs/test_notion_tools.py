"""Notion environment: each tool's success path changes (or reads) the state it should."""

from __future__ import annotations

import pytest

from agentworld.servers import Environment, Session
from agentworld.servers.envs.notion import DEFINITION
from agentworld.servers.envs.notion.seeder import sid
from tests.servers.envs.rule_harness import ok

ENV = Environment(DEFINITION)
ROADMAP = sid("db", "roadmap")


def usr(key: str) -> str:
    return sid("usr", key)


def pg(key: str) -> str:
    return sid("pg", key)


@pytest.fixture
def session():
    s = Session(ENV, seed=1)
    yield s
    s.close()


def call(session, tool, **args):
    return ok(session.call(tool, args))


def walk(session, tool, key, **args):
    """Every item of a paged listing, following next_cursor to the end."""
    items, cursor = [], None
    while True:
        page = call(session, tool, **args, **({"cursor": cursor} if cursor else {}))
        items += page[key]
        cursor = page["next_cursor"]
        if cursor is None:
            assert len(items) == page["total"]
            return items


def scalar(session, sql, *params):
    return session.db.execute(sql, params).fetchone()[0]


# -- members and search ----------------------------------------------------------------------
def test_list_members_pages_through_everyone_once(session):
    members = walk(session, "list_members", "members", actor_id=usr("be1"), limit=7)
    assert len({m["id"] for m in members}) == 25
    guests = call(session, "list_members", actor_id=usr("be1"), role="guest")["members"]
    assert {g["id"] for g in guests} == {usr("guest_design"), usr("guest_recruit"),
                                         usr("guest_audit")}
    found = call(session, "list_members", actor_id=usr("be1"), query="ardentsecurity")
    assert [m["id"] for m in found["members"]] == [usr("guest_audit")]


def test_search_respects_sharing_and_trash(session):
    guest_hits = walk(session, "search", "results", actor_id=usr("guest_design"), limit=2)
    assert {h["id"] for h in guest_hits} == {pg("design-system")} | {
        pg(f"design-{i}") for i in range(4)}
    rfcs = call(session, "search", actor_id=usr("be1"), query="rfc-0", limit=50)["results"]
    with_trash = call(session, "search", actor_id=usr("be1"), query="rfc-0",
                      include_archived=True, limit=50)["results"]
    assert len(with_trash) == len(rfcs) + 2 and all(not h["in_trash"] for h in rfcs)
    stamps = [h["last_edited_at"] for h in rfcs]
    assert stamps == sorted(stamps, reverse=True)
    dbs = call(session, "search", actor_id=usr("be1"), object="database")["results"]
    assert {d["id"] for d in dbs} == {ROADMAP, sid("db", "bugs")}


def test_search_walk_visits_each_visible_page_once(session):
    hits = walk(session, "search", "results", actor_id=usr("be1"), object="page", limit=100)
    assert len(hits) == len({h["id"] for h in hits}) > 200
    assert pg("comp-bands") not in {h["id"] for h in hits}


# -- pages -------------------------------------------------------------------------------------
def test_get_page_shows_breadcrumb_children_and_row_properties(session):
    page = call(session, "get_page", actor_id=usr("sre1"), page_id=pg("runbook-0"))
    assert [c["title"] for c in page["breadcrumb"]] == ["Engineering Wiki", "Runbooks"]
    assert page["access"] == "can_edit" and page["properties"] is None
    hub = call(session, "get_page", actor_id=usr("sre1"), page_id=pg("runbooks"))
    assert len([c for c in hub["children"] if c["object"] == "page"]) == 8
    row = call(session, "get_page", actor_id=usr("pm_growth"), page_id=pg("roadmap-0"))
    assert row["breadcrumb"][-1] == {"id": ROADMAP, "object": "database", "title": "Roadmap"}
    assert row["properties"]["Name"] == row["page"]["title"]
    assert call(session, "get_page", actor_id=usr("be1"),
                page_id=pg("okr-q1-2026"))["access"] == "can_comment"


def test_create_page_at_root_and_under_parent(session):
    top = call(session, "create_page", actor_id=usr("analyst"), title="Metrics Glossary",
               teamspace_id=sid("ts", "product"), icon="📊")["page"]
    assert top["parent_type"] == "workspace" and top["teamspace_id"] == sid("ts", "product")
    assert scalar(session, "SELECT level FROM page_permissions WHERE page_id = ? AND "
                  "member_id = ?", top["id"], usr("analyst")) == "full_access"
    sub = call(session, "create_page", actor_id=usr("analyst"), title="Active workspace",
               parent_page_id=top["id"])["page"]
    assert sub["parent_id"] == top["id"] and sub["teamspace_id"] == sid("ts", "product")
    children = call(session, "get_page", actor_id=usr("analyst"), page_id=top["id"])["children"]
    assert [c["id"] for c in children] == [sub["id"]]


def test_update_page_renames_a_row_title(session):
    call(session, "update_page", actor_id=usr("pm_growth"), page_id=pg("roadmap-0"),
         title="Postgres 16 upgrade (done)")
    row = call(session, "get_page", actor_id=usr("pm_growth"), page_id=pg("roadmap-0"))
    assert row["properties"]["Name"] == "Postgres 16 upgrade (done)"
    call(session, "update_page", actor_id=usr("pm_growth"), page_id=pg("roadmap-0"), icon="")
    assert scalar(session, "SELECT icon FROM pages WHERE id = ?", pg("roadmap-0")) is None


def test_move_page_carries_subtree_into_new_teamspace(session):
    call(session, "move_page", actor_id=usr("cto"), page_id=pg("standards"),
         new_parent_page_id=pg("product-home"))
    assert scalar(session, "SELECT parent_page_id FROM pages WHERE id = ?",
                  pg("standards")) == pg("product-home")
    assert scalar(session, "SELECT teamspace_id FROM pages WHERE id = ?",
                  pg("standard-2")) == sid("ts", "product")
    moved = call(session, "move_page", actor_id=usr("cto"), page_id=pg("standards"))["page"]
    assert moved["parent_type"] == "workspace" and moved["parent_id"] is None


def test_archive_sweeps_subtree_and_restore_brings_it_back(session):
    result = call(session, "archive_page", actor_id=usr("sre1"), page_id=pg("runbooks"))
    assert result["pages_in_trash"] == 9
    hits = call(session, "search", actor_id=usr("sre1"), query="Runbook:")["results"]
    assert hits == []
    child = call(session, "get_page", actor_id=usr("sre1"), page_id=pg("runbook-1"))["page"]
    assert child["in_trash"] and not child["archived"]
    call(session, "restore_page", actor_id=usr("sre1"), page_id=pg("runbooks"))
    assert len(call(session, "search", actor_id=usr("sre1"), query="Runbook:")["results"]) == 8


# -- blocks ------------------------------------------------------------------------------------
def test_block_children_page_and_nested(session):
    blocks = walk(session, "get_block_children", "blocks", actor_id=usr("sre1"),
                  parent_id=pg("runbook-0"), limit=4)
    assert [b["position"] for b in blocks] == list(range(len(blocks)))
    toggle = next(b for b in walk(session, "get_block_children", "blocks",
                                  actor_id=usr("sre1"), parent_id=pg("svc-api-gateway"))
                  if b["type"] == "toggle")
    assert toggle["has_children"]
    nested = call(session, "get_block_children", actor_id=usr("sre1"),
                  parent_id=toggle["id"])["blocks"]
    assert len(nested) == 3 and all(b["parent_id"] == toggle["id"] for b in nested)


def test_append_after_a_block_shifts_later_siblings(session):
    first = sid("blk", "runbook-0/0")
    second_before = scalar(session, "SELECT id FROM blocks WHERE page_id = ? AND "
                           "parent_block_id IS NULL AND position = 1", pg("runbook-0"))
    made = call(session, "append_blocks", actor_id=usr("sre1"), parent_id=pg("runbook-0"),
                after_block_id=first, children=[
                    {"type": "to_do", "text": "Tell support", "checked": False},
                    {"type": "toggle", "text": "Background",
                     "children": [{"type": "paragraph", "text": "Seen twice in 2025."}]}])
    assert made["created"] == 3 and [b["position"] for b in made["blocks"]] == [1, 2]
    assert scalar(session, "SELECT position FROM blocks WHERE id = ?", second_before) == 3
    toggle_id = made["blocks"][1]["id"]
    assert scalar(session, "SELECT COUNT(*) FROM blocks WHERE parent_block_id = ?",
                  toggle_id) == 1


def test_append_inside_a_list_item(session):
    parent = sid("blk", "runbook-0/9")  # a bulleted list item
    call(session, "append_blocks", actor_id=usr("sre1"), parent_id=parent,
         children=[{"type": "bulleted_list_item", "text": "Page the SRE lead as well"}])
    assert scalar(session, "SELECT text FROM blocks WHERE parent_block_id = ?",
                  parent) == "Page the SRE lead as well"


def test_update_block_text_and_code_language(session):
    code_id = scalar(session, "SELECT id FROM blocks WHERE page_id = ? AND type = 'code'",
                     pg("runbook-0"))
    block = call(session, "update_block", actor_id=usr("sre1"), block_id=code_id,
                 text="kubectl -n gateway rollout status deployment/api-gateway",
                 language="shell")["block"]
    assert block["language"] == "shell" and block["text"].startswith("kubectl")
    assert scalar(session, "SELECT last_edited_by FROM pages WHERE id = ?",
                  pg("runbook-0")) == usr("sre1")


def test_delete_block_removes_children_threads_and_compacts(session):
    toggle = scalar(session, "SELECT id FROM blocks WHERE page_id = ? AND type = 'toggle'",
                    pg("svc-api-gateway"))
    position = scalar(session, "SELECT position FROM blocks WHERE id = ?", toggle)
    session.db.execute("INSERT INTO discussions VALUES ('dsc_test', ?, ?, 0, NULL, NULL, "
                       "'2026-01-01T10:00:00Z')", (pg("svc-api-gateway"), toggle))
    result = call(session, "delete_block", actor_id=usr("sre1"), block_id=toggle)
    assert result["blocks_deleted"] == 4
    assert scalar(session, "SELECT COUNT(*) FROM discussions WHERE id = 'dsc_test'") == 0
    positions = [r[0] for r in session.db.execute(
        "SELECT position FROM blocks WHERE page_id = ? AND parent_block_id IS NULL "
        "ORDER BY position", (pg("svc-api-gateway"),))]
    assert positions == list(range(len(positions))) and position <= len(positions)


# -- databases ---------------------------------------------------------------------------------
def test_get_database_schema(session):
    data = call(session, "get_database", actor_id=usr("pm_growth"), database_id=ROADMAP)
    props = {p["name"]: p for p in data["properties"]}
    assert props["Name"]["type"] == "title"
    assert [o["name"] for o in props["Priority"]["options"]] == ["P0", "P1", "P2", "P3"]
    assert {o["group"] for o in props["Status"]["options"]} == {"to_do", "in_progress",
                                                                "complete"}
    assert data["database"]["row_count"] == scalar(
        session, "SELECT COUNT(*) FROM pages WHERE parent_database_id = ? AND archived = 0",
        ROADMAP)


def test_query_database_filters_sort_and_paging(session):
    everything = walk(session, "query_database", "rows", actor_id=usr("pm_growth"),
                      database_id=ROADMAP, limit=9)
    assert len({r["id"] for r in everything}) == len(everything) == scalar(
        session, "SELECT COUNT(*) FROM pages WHERE parent_database_id = ? AND archived = 0",
        ROADMAP)
    owner = usr("be1")
    mine = walk(session, "query_database", "rows", actor_id=usr("pm_growth"),
                database_id=ROADMAP, filters=[
                    {"property": "Owner", "operator": "contains", "value": owner},
                    {"property": "Status", "operator": "does_not_equal", "value": "Shipped"}])
    assert mine and all(owner in r["properties"]["Owner"] and
                        r["properties"]["Status"] != "Shipped" for r in mine)
    dated = call(session, "query_database", actor_id=usr("pm_growth"), database_id=ROADMAP,
                 filters=[{"property": "Due date", "operator": "on_or_after",
                           "value": "2026-01-01"}],
                 sort={"property": "Due date", "direction": "descending"}, limit=100)["rows"]
    dues = [r["properties"]["Due date"] for r in dated]
    assert dues == sorted(dues, reverse=True) and min(dues) >= "2026-01-01"
    issues = call(session, "query_database", actor_id=usr("pm_growth"), database_id=ROADMAP,
                  sort={"property": "Tracking issue"}, limit=100)["rows"]
    empties = [r["properties"]["Tracking issue"] is None for r in issues]
    assert empties == sorted(empties), "empty values sort last"
    archived = call(session, "query_database", actor_id=usr("pm_growth"), database_id=ROADMAP,
                    include_archived=True, filters=[
                        {"property": "Status", "operator": "equals", "value": "Cancelled"}])
    assert archived["rows"] and all(r["archived"] for r in archived["rows"])


def test_create_and_update_row(session):
    row = call(session, "create_database_row", actor_id=usr("qa"),
               database_id=sid("db", "bugs"), properties={
                   "Bug": "Export button hidden on narrow screens", "Status": "Triage",
                   "Severity": "Low", "Component": "web-app", "Labels": ["ui"],
                   "Reported on": "2026-03-01", "Reported by": [usr("qa")]})["row"]
    assert row["properties"]["Assignee"] == [] and row["properties"]["Labels"] == ["ui"]
    updated = call(session, "update_database_row_properties", actor_id=usr("fe2"),
                   page_id=row["id"], properties={
                       "Status": "In progress", "Assignee": [usr("fe2")], "Labels": None,
                       "Bug": "Export button hidden below 360 px"})["row"]
    assert updated["title"] == "Export button hidden below 360 px"
    assert updated["properties"]["Labels"] == [] and updated["last_edited_by"] == usr("fe2")
    assert scalar(session, "SELECT COUNT(*) FROM property_values WHERE page_id = ? AND "
                  "property_name = 'Labels'", row["id"]) == 0


def test_archived_row_cannot_change(session):
    row = scalar(session, "SELECT id FROM pages WHERE parent_database_id = ? AND archived = 1",
                 ROADMAP)
    result = session.call("update_database_row_properties", {
        "actor_id": usr("vp_product"), "page_id": row, "properties": {"Priority": "P3"}})
    assert result.code == "PRECONDITION_FAILED"


# -- comments and sharing ----------------------------------------------------------------------
def test_comment_thread_lifecycle(session):
    block = sid("blk", "spec-2/1")
    first = call(session, "add_comment", actor_id=usr("pm_billing"), block_id=block,
                 body="Should viewers be able to export?")["comment"]
    reply = call(session, "add_comment", actor_id=usr("fe1"),
                 discussion_id=first["discussion_id"], body="Yes, read-only export.")
    assert reply["comment"]["discussion_id"] == first["discussion_id"]
    threads = call(session, "list_comments", actor_id=usr("fe1"), page_id=pg("spec-2"),
                   block_id=block)["discussions"]
    assert [len(t["comments"]) for t in threads][-1] == 2
    call(session, "resolve_comment", actor_id=usr("pm_billing"),
         discussion_id=first["discussion_id"])
    open_ids = {t["id"] for t in call(session, "list_comments", actor_id=usr("fe1"),
                                      page_id=pg("spec-2"))["discussions"]}
    assert first["discussion_id"] not in open_ids
    reopened = call(session, "resolve_comment", actor_id=usr("fe1"),
                    discussion_id=first["discussion_id"], resolved=False)
    assert reopened["resolved"] is False and reopened["resolved_by"] is None
    all_threads = walk(session, "list_comments", "discussions", actor_id=usr("fe1"),
                       page_id=pg("spec-2"), include_resolved=True, limit=1)
    assert first["discussion_id"] in {t["id"] for t in all_threads}


def test_sharing_inherits_and_can_be_overridden(session):
    guest = usr("guest_audit")
    assert session.call("get_page", {"actor_id": guest, "page_id": pg("runbooks")}).code \
        == "NOT_FOUND"
    call(session, "share_page", actor_id=usr("cto"), page_id=pg("eng-wiki"), member_id=guest,
         level="can_view")
    assert call(session, "get_page", actor_id=guest, page_id=pg("runbook-3"))["access"] \
        == "can_view"
    shared = call(session, "share_page", actor_id=usr("cto"), page_id=pg("runbooks"),
                  member_id=guest, level="no_access")
    assert shared["effective_level"] == "no_access"
    assert session.call("get_page", {"actor_id": guest, "page_id": pg("runbook-3")}).code \
        == "NOT_FOUND"
    removed = call(session, "share_page", actor_id=usr("cto"), page_id=pg("runbooks"),
                   member_id=guest, level="remove")
    assert removed["effective_level"] == "can_view" and removed["source"] == "inherited"


def test_page_permissions_explain_sources(session):
    perms = call(session, "get_page_permissions", actor_id=usr("people_lead"),
                 page_id=pg("comp-bands"))
    entries = {e["member_id"]: e for e in perms["entries"]}
    assert perms["member_default"] == "no_access"
    assert entries[usr("ceo")]["source"] == "owner"
    assert entries[usr("recruiter")]["level"] == "no_access"
    assert entries[usr("people_lead")]["source"] == "inherited"
    assert entries[usr("people_lead")]["source_page_id"] == pg("people-ops")
    assert usr("be1") not in entries
    wiki = call(session, "get_page_permissions", actor_id=usr("be1"), page_id=pg("runbook-0"))
    assert wiki["member_default"] == "can_edit"
    assert {e["source"] for e in wiki["entries"]} >= {"owner", "workspace", "inherited"}

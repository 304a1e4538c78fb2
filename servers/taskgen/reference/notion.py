"""Reference tasks for the Notion environment (the Lumen Labs workspace)."""

from __future__ import annotations

import json
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
    record,
    rows,
    simulate,
    values,
)

__all__ = ["notion_tasks"]

ENV = "notion"
TODAY = "2026-03-02"
COMPLETE = "complete"


def _member(db, name: str) -> dict[str, Any]:
    return one(db, "SELECT * FROM members WHERE name = ?", name)


def _database(db, title: str) -> dict[str, Any]:
    return one(db, "SELECT * FROM databases WHERE title = ?", title)


def _page(db, title: str) -> dict[str, Any]:
    return one(db, "SELECT * FROM pages WHERE title = ? AND archived = 0", title)


def _rows(db, database_id: str) -> list[dict[str, Any]]:
    """Live rows of a database with their decoded property values, in creation order."""
    out = []
    for page in rows(db, "SELECT * FROM pages WHERE parent_database_id = ? AND archived = 0 "
                     "ORDER BY created_at, id", database_id):
        props = {r["property_name"]: json.loads(r["value"]) for r in rows(
            db, "SELECT property_name, value FROM property_values WHERE page_id = ?", page["id"])}
        out.append({**page, "props": props})
    return out


def _complete(db, database_id: str, prop: str) -> set[str]:
    return {r["name"] for r in rows(db, "SELECT name FROM property_options WHERE database_id = ? "
                                    "AND property_name = ? AND status_group = ?",
                                    database_id, prop, COMPLETE)}


def _as(actor: dict[str, Any]) -> str:
    return f"You are {actor['name']} (member id {actor['id']})."


def _block_reads(db, actor: str, page_id: str) -> list[list[Any]]:
    """The calls that read a page's whole block tree: the page, then every block with children."""
    calls = [["get_block_children", {"actor_id": actor, "parent_id": page_id, "limit": 100}]]
    stack = [page_id]
    while stack:
        parent = stack.pop(0)
        column = "parent_block_id IS NULL AND page_id" if parent == page_id else "parent_block_id"
        for b in rows(db, f"SELECT id FROM blocks WHERE {column} = ? ORDER BY position", parent):
            if rows(db, "SELECT 1 FROM blocks WHERE parent_block_id = ?", b["id"]):
                calls.append(["get_block_children", {"actor_id": actor, "parent_id": b["id"],
                                                     "limit": 100}])
                stack.append(b["id"])
    return calls


def _unchecked(db, page_id: str) -> list[dict[str, Any]]:
    return rows(db, "SELECT * FROM blocks WHERE page_id = ? AND type = 'to_do' AND checked = 0 "
                "ORDER BY id", page_id)


# ---- short tasks ----------------------------------------------------------------------------

def _check_page_todos(env, db, n):
    actor = _member(db, "Wei Demir")
    page = one(db, """SELECT p.* FROM pages p WHERE p.archived = 0 AND p.parent_type = 'page'
        AND (SELECT title FROM pages m WHERE m.id = p.parent_page_id) <> 'Meeting Notes'
        AND (SELECT COUNT(*) FROM blocks b WHERE b.page_id = p.id AND b.type = 'to_do'
             AND b.checked = 0) BETWEEN 2 AND 4
        ORDER BY (SELECT COUNT(*) FROM blocks b WHERE b.page_id = p.id AND b.type = 'to_do'
             AND b.checked = 1) DESC, p.id""")
    todo = _unchecked(db, page["id"])
    calls = [["search", {"actor_id": actor["id"], "query": page["title"]}],
             *_block_reads(db, actor["id"], page["id"])]
    calls += [["update_block", {"actor_id": actor["id"], "block_id": b["id"], "checked": True}]
              for b in todo]
    prompt = (f"{_as(actor)} Mark every unchecked to-do on the page \"{page['title']}\" as "
              "done; leave everything else on the page as it is.")
    checks = [values("blocks", {"id": b["id"]}, {"checked": 1}) for b in todo]
    checks.append(guard("blocks", len(todo)))
    return record(ENV, n, prompt, calls, checks, None, template="check_page_todos")


def _slip_owner_items(env, db, n):
    roadmap, actor = _database(db, "Roadmap"), _member(db, "Wei Demir")
    items = _rows(db, roadmap["id"])
    owners = Counter(o for r in items if r["props"].get("Status") == "In progress"
                     for o in r["props"].get("Owner", []))
    for owner_id, count in owners.most_common():
        mine = sorted((r for r in items if r["props"].get("Status") == "In progress"
                       and owner_id in r["props"].get("Owner", [])),
                      key=lambda r: (r["props"].get("Due date") or "9999", r["id"]))
        dated = [r for r in mine if r["props"].get("Due date")]
        if count >= 3 and len(dated) >= 3 and dated[-2]["props"]["Due date"] != \
                dated[-1]["props"]["Due date"]:
            break
    else:
        raise LookupError("the seed has no situation for this task")
    cutoff = dated[-1]["props"]["Due date"]
    targets = [r for r in dated if r["props"]["Due date"] < cutoff]
    owner = one(db, "SELECT * FROM members WHERE id = ?", owner_id)
    calls = [["list_members", {"actor_id": actor["id"], "query": owner["name"]}],
             ["search", {"actor_id": actor["id"], "query": "Roadmap", "object": "database"}],
             ["query_database", {"actor_id": actor["id"], "database_id": roadmap["id"],
                                 "filters": [{"property": "Owner", "operator": "contains",
                                              "value": owner_id},
                                             {"property": "Status", "operator": "equals",
                                              "value": "In progress"}]}]]
    calls += [["update_database_row_properties", {"actor_id": actor["id"], "page_id": r["id"],
                                                  "properties": {"Status": "Planned"}}]
              for r in targets]
    prompt = (f"{_as(actor)} {owner['name']} is out for a few weeks. In the Roadmap database, "
              f"set the Status of every item {owner['name']} owns that is In progress and due "
              f"before {cutoff} back to Planned, and tell me how many items you changed.")
    checks = [values("property_values", {"page_id": r["id"], "property_name": "Status"},
                     {"value": json.dumps("Planned")}) for r in targets]
    checks += [answer(len(targets)), guard("property_values", len(targets))]
    return record(ENV, n, prompt, calls, checks, str(len(targets)), template="slip_owner_items")


def _count_serious_bugs(env, db, n):
    bugs, actor = _database(db, "Bugs"), _member(db, "Freya Fernandez")
    done = _complete(db, bugs["id"], "Status")
    hits = [r for r in _rows(db, bugs["id"]) if r["props"].get("Status") not in done
            and r["props"].get("Severity") in ("High", "Critical")]
    calls = [["search", {"actor_id": actor["id"], "query": "Bugs", "object": "database"}],
             ["get_database", {"actor_id": actor["id"], "database_id": bugs["id"]}],
             ["query_database", {"actor_id": actor["id"], "database_id": bugs["id"],
                                 "limit": 100}]]
    prompt = (f"{_as(actor)} How many bugs in the Bugs database are still unresolved (their "
              "status is not in the complete group) with severity High or Critical?")
    return record(ENV, n, prompt, calls, [answer(len(hits))], str(len(hits)),
                  template="count_serious_bugs")


def _team_effort(env, db, n):
    roadmap, actor = _database(db, "Roadmap"), _member(db, "Wei Demir")
    done, items = _complete(db, roadmap["id"], "Status"), _rows(db, roadmap["id"])
    open_items = [r for r in items if r["props"].get("Status") not in done]
    team = Counter(r["props"].get("Team") for r in open_items).most_common(1)[0][0]
    mine = [r for r in open_items if r["props"].get("Team") == team]
    total = sum(r["props"].get("Effort (weeks)") or 0 for r in mine)
    calls = [["search", {"actor_id": actor["id"], "query": "Roadmap", "object": "database"}],
             ["query_database", {"actor_id": actor["id"], "database_id": roadmap["id"],
                                 "filters": [{"property": "Team", "operator": "equals",
                                              "value": team}], "limit": 100}]]
    prompt = (f"{_as(actor)} How many weeks of effort (the Effort (weeks) property) are left "
              f"on the {team} team's Roadmap items that are not shipped or cancelled yet? "
              "Answer with the total.")
    return record(ENV, n, prompt, calls, [answer(total)], str(total), template="team_effort")


def _busiest_recruiter(env, db, n):
    candidates, actor = _database(db, "Candidates"), _member(db, "Ibrahim Shah")
    closed = _complete(db, candidates["id"], "Stage")
    stages = Counter(r["props"].get("Stage") for r in _rows(db, candidates["id"]))
    for stage, _ in stages.most_common():
        if stage in closed:
            continue
        people = Counter(p for r in _rows(db, candidates["id"]) if r["props"].get("Stage") == stage
                         for p in r["props"].get("Recruiter", []))
        top = people.most_common(2)
        if top and (len(top) == 1 or top[0][1] > top[1][1]) and top[0][1] >= 2:
            break
    else:
        raise LookupError("the seed has no situation for this task")
    recruiter = one(db, "SELECT * FROM members WHERE id = ?", top[0][0])
    calls = [["search", {"actor_id": actor["id"], "query": "Candidates", "object": "database"}],
             ["query_database", {"actor_id": actor["id"], "database_id": candidates["id"],
                                 "filters": [{"property": "Stage", "operator": "equals",
                                              "value": stage}], "limit": 100}],
             ["list_members", {"actor_id": actor["id"], "limit": 100}]]
    prompt = (f"{_as(actor)} Which recruiter owns the most candidates currently in the "
              f"\"{stage}\" stage of the Candidates database, and how many? Give their name.")
    return record(ENV, n, prompt, calls,
                  [answer(recruiter["name"]), answer(top[0][1], points=1, name="how many")],
                  f"{recruiter['name']} {top[0][1]}", template="busiest_recruiter")


def _open_threads(db) -> list[dict[str, Any]]:
    return rows(db, """SELECT p.id, p.title, COUNT(*) AS k FROM discussions d
        JOIN pages p ON p.id = d.page_id WHERE d.resolved = 0 AND p.archived = 0
        GROUP BY p.id HAVING COUNT(*) >= 2 ORDER BY COUNT(*) DESC, p.title""")


def _resolve_threads(env, db, n):
    actor, page = _member(db, "Wei Demir"), _open_threads(db)[0]
    threads = rows(db, "SELECT * FROM discussions WHERE page_id = ? AND resolved = 0 "
                   "ORDER BY created_at, id", page["id"])
    calls = [["search", {"actor_id": actor["id"], "query": page["title"]}],
             ["list_comments", {"actor_id": actor["id"], "page_id": page["id"]}]]
    calls += [["resolve_comment", {"actor_id": actor["id"], "discussion_id": t["id"]}]
              for t in threads]
    prompt = (f"{_as(actor)} The open questions on \"{page['title']}\" have all been answered. "
              "Resolve every unresolved comment thread on that page.")
    checks = [values("discussions", {"id": t["id"]}, {"resolved": 1, "resolved_by": actor["id"]})
              for t in threads]
    checks.append(guard("discussions", len(threads)))
    return record(ENV, n, prompt, calls, checks, None, template="resolve_threads")


REPLY = "Thanks, we will pick this up at the next architecture review."


def _reply_threads(env, db, n):
    actor = _member(db, "Felix Martinez")
    page = _open_threads(db)[1]
    threads = rows(db, "SELECT * FROM discussions WHERE page_id = ? AND resolved = 0 "
                   "ORDER BY created_at, id", page["id"])
    calls = [["search", {"actor_id": actor["id"], "query": page["title"]}],
             ["list_comments", {"actor_id": actor["id"], "page_id": page["id"]}]]
    calls += [["add_comment", {"actor_id": actor["id"], "discussion_id": t["id"], "body": REPLY}]
              for t in threads]
    prompt = (f"{_as(actor)} Reply exactly \"{REPLY}\" in every unresolved comment thread on "
              f"\"{page['title']}\" (do not start new threads).")
    checks = [added("comments", {"discussion_id": t["id"], "author_id": actor["id"],
                                 "body": REPLY}) for t in threads]
    checks += [guard("comments", len(threads)), guard("discussions", 0)]
    return record(ENV, n, prompt, calls, checks, None, template="reply_threads")


def _share_section(env, db, n):
    actor, guest = _member(db, "Nora Tanaka"), _member(db, "Giulia Petrov")
    section = _page(db, "Runbooks")
    pages = [p for p in rows(db, "SELECT * FROM pages WHERE parent_page_id = ? AND archived = 0 "
                             "ORDER BY created_at, id", section["id"])
             if not rows(db, "SELECT 1 FROM page_permissions WHERE page_id = ? AND "
                         "member_id = ?", p["id"], guest["id"])]
    calls = [["list_members", {"actor_id": actor["id"], "query": guest["name"]}],
             ["search", {"actor_id": actor["id"], "query": section["title"]}],
             ["get_page", {"actor_id": actor["id"], "page_id": section["id"]}]]
    calls += [["share_page", {"actor_id": actor["id"], "page_id": p["id"],
                              "member_id": guest["id"], "level": "can_view"}] for p in pages]
    prompt = (f"{_as(actor)} {guest['name']} is auditing our incident process. Share each page "
              f"directly under \"{section['title']}\" with her at the \"can view\" level (not the "
              f"{section['title']} page itself).")
    checks = [added("page_permissions", {"page_id": p["id"], "member_id": guest["id"],
                                         "level": "can_view"}) for p in pages]
    checks.append(guard("page_permissions", len(pages)))
    return record(ENV, n, prompt, calls, checks, None, template="share_section")


def _add_roadmap_item(env, db, n):
    roadmap, actor = _database(db, "Roadmap"), _member(db, "Wei Demir")
    owner = _member(db, "Hiroshi Kowalski")
    quarter = rows(db, "SELECT name FROM property_options WHERE database_id = ? AND "
                   "property_name = 'Quarter' ORDER BY name DESC", roadmap["id"])[0]["name"]
    props = {"Name": "Offline mode for the mobile app", "Status": "Planned", "Priority": "P1",
             "Owner": [owner["id"]], "Team": "Mobile", "Quarter": quarter,
             "Due date": "2026-06-26"}
    calls = [["list_members", {"actor_id": actor["id"], "query": owner["name"]}],
             ["search", {"actor_id": actor["id"], "query": "Roadmap", "object": "database"}],
             ["get_database", {"actor_id": actor["id"], "database_id": roadmap["id"]}],
             ["create_database_row", {"actor_id": actor["id"], "database_id": roadmap["id"],
                                      "properties": props}]]
    simulate(env, calls)
    prompt = (f"{_as(actor)} Add an item \"{props['Name']}\" to the Roadmap database: owner "
              f"{owner['name']}, team Mobile, priority P1, status Planned, quarter {quarter}, "
              f"due {props['Due date']}.")
    checks = [added("pages", {"title": props["Name"], "parent_database_id": roadmap["id"],
                              "archived": 0}, points=2)]
    checks += [added("property_values", {"database_id": roadmap["id"], "property_name": k,
                                         "value": json.dumps(v)})
               for k, v in props.items() if k in ("Owner", "Due date", "Status", "Quarter")]
    checks.append(guard("pages", 1))
    return record(ENV, n, prompt, calls, checks, None, template="add_roadmap_item")


def _first_due(env, db, n):
    roadmap, actor = _database(db, "Roadmap"), _member(db, "Wei Demir")
    items = [r for r in _rows(db, roadmap["id"]) if r["props"].get("Status") == "Planned"
             and r["props"].get("Due date")]
    teams = Counter(r["props"].get("Team") for r in items)
    for team, count in teams.most_common():
        mine = sorted((r for r in items if r["props"].get("Team") == team),
                      key=lambda r: r["props"]["Due date"])
        if count >= 2 and mine[0]["props"]["Due date"] != mine[1]["props"]["Due date"]:
            break
    else:
        raise LookupError("the seed has no situation for this task")
    calls = [["search", {"actor_id": actor["id"], "query": "Roadmap", "object": "database"}],
             ["query_database", {"actor_id": actor["id"], "database_id": roadmap["id"],
                                 "filters": [{"property": "Team", "operator": "equals",
                                              "value": team},
                                             {"property": "Status", "operator": "equals",
                                              "value": "Planned"}],
                                 "sort": {"property": "Due date", "direction": "ascending"}}]]
    first = mine[0]
    prompt = (f"{_as(actor)} Which Planned Roadmap item of the {team} team is due first, and on "
              "what date?")
    return record(ENV, n, prompt, calls,
                  [answer(first["title"]), answer(first["props"]["Due date"], points=1,
                                                  name="date")],
                  f"{first['title']} {first['props']['Due date']}", template="first_due")


def _reassign_bugs(env, db, n):
    bugs, actor = _database(db, "Bugs"), _member(db, "Freya Fernandez")
    done, items = _complete(db, bugs["id"], "Status"), _rows(db, bugs["id"])
    load_of = Counter(p for r in items if r["props"].get("Status") not in done
                      for p in r["props"].get("Assignee", []))
    old_id = next(p for p, k in load_of.most_common() if k >= 2)
    old = one(db, "SELECT * FROM members WHERE id = ?", old_id)
    new = _member(db, "Grace Mensah")
    targets = [r for r in items if r["props"].get("Status") not in done
               and old_id in r["props"].get("Assignee", [])]
    calls = [["list_members", {"actor_id": actor["id"], "query": old["name"]}],
             ["list_members", {"actor_id": actor["id"], "query": new["name"]}],
             ["search", {"actor_id": actor["id"], "query": "Bugs", "object": "database"}],
             ["query_database", {"actor_id": actor["id"], "database_id": bugs["id"],
                                 "filters": [{"property": "Assignee", "operator": "contains",
                                              "value": old_id}]}]]
    calls += [["update_database_row_properties", {"actor_id": actor["id"], "page_id": r["id"],
                                                  "properties": {"Assignee": [new["id"]]}}]
              for r in targets]
    prompt = (f"{_as(actor)} {old['name']} is moving teams. Reassign every bug in the Bugs "
              f"database that is assigned to {old['name']} and not yet resolved (status not in "
              f"the complete group) to {new['name']} alone. Leave resolved bugs untouched.")
    checks = [values("property_values", {"page_id": r["id"], "property_name": "Assignee"},
                     {"value": json.dumps([new["id"]])}) for r in targets]
    checks.append(guard("property_values", len(targets)))
    return record(ENV, n, prompt, calls, checks, None, template="reassign_bugs")


# ---- long-horizon tasks --------------------------------------------------------------------

NUDGE = "This item is past its due date. Please update its status or move the due date."


def _nudge_overdue(env, db, n):
    """Comment on every unfinished Roadmap item past its due date."""
    roadmap, actor = _database(db, "Roadmap"), _member(db, "Wei Demir")
    done = _complete(db, roadmap["id"], "Status")
    late = [r for r in _rows(db, roadmap["id"]) if r["props"].get("Status") not in done
            and r["props"].get("Due date") and r["props"]["Due date"] < TODAY]
    calls = [["search", {"actor_id": actor["id"], "query": "Roadmap", "object": "database"}],
             ["query_database", {"actor_id": actor["id"], "database_id": roadmap["id"],
                                 "filters": [{"property": "Due date", "operator": "before",
                                              "value": TODAY}], "limit": 100}]]
    calls += [["add_comment", {"actor_id": actor["id"], "page_id": r["id"], "body": NUDGE}]
              for r in late]
    prompt = (f"{_as(actor)} Today is {TODAY}. On every Roadmap item that is past its due date "
              "but not shipped or cancelled, start a comment thread saying exactly "
              f"\"{NUDGE}\" Then tell me how many items were overdue.")
    checks = [added("discussions", {"page_id": r["id"], "block_id": None, "resolved": 0})
              for r in late]
    checks += [answer(len(late)), guard("comments", len(late)), guard("discussions", len(late))]
    return record(ENV, n, prompt, calls, checks, str(len(late)), long=True,
                  template="nudge_overdue")


def _archive_fixed_bugs(env, db, n):
    """Archive the Fixed bugs reported before the month that makes the sweep long enough."""
    bugs, actor = _database(db, "Bugs"), _member(db, "Freya Fernandez")
    fixed = sorted((r for r in _rows(db, bugs["id"]) if r["props"].get("Status") == "Fixed"
                    and r["props"].get("Reported on")), key=lambda r: r["props"]["Reported on"])
    months = sorted({r["props"]["Reported on"][:7] for r in fixed})
    cutoff = next(f"{m}-01" for m in months
                  if sum(r["props"]["Reported on"] < f"{m}-01" for r in fixed) >= 14)
    targets = [r for r in fixed if r["props"]["Reported on"] < cutoff]
    calls = [["search", {"actor_id": actor["id"], "query": "Bugs", "object": "database"}],
             ["query_database", {"actor_id": actor["id"], "database_id": bugs["id"],
                                 "filters": [{"property": "Status", "operator": "equals",
                                              "value": "Fixed"},
                                             {"property": "Reported on", "operator": "before",
                                              "value": cutoff}], "limit": 100}]]
    calls += [["archive_page", {"actor_id": actor["id"], "page_id": r["id"]}] for r in targets]
    prompt = (f"{_as(actor)} Clean up the Bugs database: archive every bug whose status is "
              f"Fixed and that was reported before {cutoff}. Tell me how many you archived.")
    checks = [values("pages", {"id": r["id"]}, {"archived": 1}) for r in targets]
    checks += [answer(len(targets)), guard("pages", len(targets))]
    return record(ENV, n, prompt, calls, checks, str(len(targets)), long=True,
                  template="archive_fixed_bugs")


def _close_action_items(env, db, n, year="2026"):
    """Check off every open action item on this year's meeting notes."""
    actor, notes = _member(db, "Wei Demir"), _page(db, "Meeting Notes")
    pages = [p for p in rows(db, "SELECT * FROM pages WHERE parent_page_id = ? AND archived = 0 "
                             "ORDER BY created_at, id", notes["id"])
             if f"— {year}-" in p["title"]]
    calls = [["search", {"actor_id": actor["id"], "query": notes["title"]}],
             ["get_page", {"actor_id": actor["id"], "page_id": notes["id"]}]]
    todo = []
    for p in pages:
        calls += _block_reads(db, actor["id"], p["id"])
        for b in _unchecked(db, p["id"]):
            calls.append(["update_block", {"actor_id": actor["id"], "block_id": b["id"],
                                           "checked": True}])
            todo.append(b)
    prompt = (f"{_as(actor)} We are closing out old action items. On every meeting-notes page "
              f"under \"{notes['title']}\" dated in {year}, check off every unchecked to-do. "
              "Tell me how many to-dos you checked off.")
    checks = [values("blocks", {"id": b["id"]}, {"checked": 1}) for b in todo]
    checks += [answer(len(todo)), guard("blocks", len(todo))]
    return record(ENV, n, prompt, calls, checks, str(len(todo)), long=True,
                  template="close_action_items")


BUILDERS: tuple[Callable, ...] = (
    _check_page_todos, _slip_owner_items, _count_serious_bugs, _team_effort, _busiest_recruiter,
    _resolve_threads, _reply_threads, _share_section, _add_roadmap_item, _first_due,
    _reassign_bugs, _nudge_overdue, _archive_fixed_bugs, _close_action_items,
)


def notion_tasks() -> list[TaskRecord]:
    """The Notion reference tasks, computed from the template database."""
    env, db = load(ENV)
    try:
        return [build(env, db, n) for n, build in enumerate(BUILDERS, start=1)]
    finally:
        db.close()

from agentworld.servers.world.mined.model import build_model

from ._surfaces import PRICES_TOOLS, TRACKER_TOOLS


def test_entities_come_from_nouns_and_id_parameters():
    model = build_model("tracker-mcp", TRACKER_TOOLS)
    assert {"project", "task", "comment"} <= set(model.entities)
    task = model.entities["task"]
    assert task.columns["project_id"].kind == "ref" and task.columns["project_id"].ref == "project"
    assert model.entities["project"].integer_ids          # referred to by integer project_id
    comment = model.entities["comment"]
    assert comment.columns["task_id"].ref == "task" and comment.label == "body"


def test_lifecycles_come_from_state_verbs_and_reversals_apply_only_from_their_state():
    task = build_model("tracker-mcp", TRACKER_TOOLS).entities["task"]
    assert task.states[:3] == ["todo", "doing", "done"] and task.initial == "todo"
    sources, target = task.moves["tracker_close_task"]
    assert target == "closed" and "todo" in sources and "closed" not in sources
    assert task.moves["tracker_reopen_task"] == (("closed",), "open")


def test_bindings_keep_the_real_parameters_and_say_what_each_means():
    model = build_model("tracker-mcp", TRACKER_TOOLS)
    by_tool = {b.tool: b for b in model.bindings}
    listing = by_tool["tracker_list_tasks"]
    assert listing.op == "list" and listing.sort == "sort_by"
    assert listing.paging == {"limit": "limit"} and listing.columns["status"] == "status"
    get = by_tool["tracker_get_task"]
    assert (get.key, get.key_column) == ("task_id", "id")
    assert [p["name"] for p in by_tool["tracker_create_task"].params] == [
        "project_id", "title", "priority", "due_date", "labels"]
    dropped = {d.tool: d.reason for d in model.dropped}
    assert set(dropped) == {"tracker_run_script", "tracker_take_screenshot",
                            "tracker_frobnicate"}


def test_rows_named_by_a_plain_key_share_one_key_column():
    model = build_model("prices-mcp", PRICES_TOOLS)
    price, book = model.entities["price"], model.entities["order_book"]
    assert price.columns["symbol"].kind == "key" and price.columns["symbol"].unique
    assert book.columns["symbol"].kind == "key"
    assert any(c.kind == "float" for c in price.columns.values())   # a price has a number

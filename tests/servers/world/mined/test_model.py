from agentworld.servers.world.mined.columns import column_for
from agentworld.servers.world.mined.model import build_model

from ._surfaces import PRICES_TOOLS, STUDIO_TOOLS, TRACKER_TOOLS, _p


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


def test_studio_shapes_read_as_the_records_they_act_on():
    model = build_model("studio-mcp", STUDIO_TOOLS)
    by_tool = {b.tool: b for b in model.bindings}
    # set_track_color and rename_track change a track; they are not colours or names of rows.
    assert "color" not in model.entities and "length" not in model.entities
    assert by_tool["set_track_color"].entity == "track"
    assert by_tool["rename_track"].columns == {"new_name": "name"}
    # get_item_properties reads one item, named by a parameter called after the entity.
    props = by_tool["get_item_properties"]
    assert (props.op, props.entity, props.key, props.key_column) == ("get", "item", "item", "id")
    assert (by_tool["update_item"].key, by_tool["update_item"].key_column) == ("item_id", "id")


def test_field_nouns_a_tool_adds_deletes_or_lists_are_records_of_their_own():
    # From ableton-mcp-extended and google-analytics-4 style surfaces: add_notes_to_clip once
    # compiled to "create a clip", delete_label to deleting the task it named.
    tools = [
        {"name": "create_clip", "source": "decorator",
         "params": [_p("track_index", "integer", True), _p("clip_index", "integer", True),
                    _p("length", "number")]},
        {"name": "add_notes_to_clip", "source": "decorator",
         "params": [_p("track_index", "integer", True), _p("clip_index", "integer", True),
                    _p("pitch", "integer", True), _p("start_time", "number")]},
        {"name": "get_clip_notes", "source": "decorator",
         "params": [_p("track_index", "integer", True), _p("clip_index", "integer", True)]},
        {"name": "set_clip_name", "source": "decorator",
         "params": [_p("track_index", "integer", True), _p("clip_index", "integer", True),
                    _p("name", required=True)]},
        {"name": "create_track", "source": "decorator", "params": [_p("name", required=True)]},
        {"name": "set_track_mute", "source": "decorator",
         "params": [_p("track_index", "integer", True), _p("mute", "boolean", True)]},
        {"name": "delete_label", "source": "decorator", "params": [_p("label_id", required=True)]},
        {"name": "list_properties", "source": "decorator", "params": [_p("account_id")]},
    ]
    by_tool = {b.tool: b for b in build_model("studio-mcp", tools).bindings}
    assert (by_tool["add_notes_to_clip"].op, by_tool["add_notes_to_clip"].entity) == (
        "create", "note")
    assert (by_tool["get_clip_notes"].op, by_tool["get_clip_notes"].entity) == ("list", "note")
    assert by_tool["set_clip_name"].entity == "clip"          # a name is still a field
    assert by_tool["set_track_mute"].entity == "track"        # so is a named track's mute
    assert (by_tool["delete_label"].op, by_tool["delete_label"].entity) == ("delete", "label")
    assert (by_tool["list_properties"].op, by_tool["list_properties"].entity) == (
        "list", "property")


def test_call_switches_stay_options_and_unresolved_classes_read_by_their_names():
    model = build_model("studio-mcp", STUDIO_TOOLS)
    by_tool = {b.tool: b for b in model.bindings}
    item = model.entities["item"]
    assert {"overwrite", "include_muted", "operation"}.isdisjoint(item.columns)
    assert "overwrite" in by_tool["insert_audio_item"].options
    assert "operation" in by_tool["update_item"].options
    listing = by_tool["list_items"]
    assert listing.paging == {"limit": "limit"}
    assert next(p for p in listing.params if p["name"] == "limit")["type"] == "integer"
    assert item.columns["title"].kind == "text"                # declared as an unknown class
    assert item.columns["take_metadata"].kind == "json"        # a real key-value map stays one


def test_a_tool_whose_parameters_are_one_undeclared_object_is_dropped_with_that_reason():
    # fintable_create_rule(params: object): a rule with a "params" column of "{}" is no rule.
    tools = [{"name": "fintable_create_rule", "source": "decorator",
              "params": [_p("params", "object", True)]},
             {"name": "fintable_list_rules", "source": "decorator",
              "params": [_p("account_id"), _p("filters", "object")]}]
    model = build_model("fintable-mcp", tools)
    assert [b.tool for b in model.bindings] == ["fintable_list_rules"]
    assert model.dropped[0].reason == ("its parameters are wrapped in one object (params) "
                                       "whose fields are not declared statically")


def test_a_calls_token_is_an_option_but_a_page_token_still_pages():
    # Canvas's delete tools took a confirmation_token; tasks asked to set it to a phrase.
    tools = [{"name": "delete_announcement", "source": "decorator",
              "params": [_p("announcement_id", required=True),
                         _p("confirmation_token", required=True)]},
             {"name": "list_announcements", "source": "decorator",
              "params": [_p("course_id"), _p("page_token"), _p("csrf_token")]},
             {"name": "create_announcement", "source": "decorator",
              "params": [_p("course_id", required=True), _p("title", required=True),
                         _p("idempotency_key")]}]
    model = build_model("canvas-lms", tools)
    by_tool = {b.tool: b for b in model.bindings}
    assert "confirmation_token" in by_tool["delete_announcement"].options
    assert "csrf_token" in by_tool["list_announcements"].options
    assert "idempotency_key" in by_tool["create_announcement"].options  # chatgpt-ads
    assert by_tool["list_announcements"].paging == {"page_token": "cursor"}
    assert {"confirmation_token", "csrf_token", "page_token"}.isdisjoint(
        model.entities["announcement"].columns)


def test_a_ttl_is_one_of_the_values_dns_and_caches_use():
    column = column_for("ttl", "integer", None, None)
    assert column.kind == "int" and set(column.values) <= {1, 60, 300, 600, 1800, 3600, 86400}
    assert column_for("proxy_ttl", "integer", None, None).values == column.values
    assert column_for("total", "integer", None, None).values == ()


def test_a_listings_filter_parameter_filters_by_its_column():
    # ArgoCD's list_applications(project_filter, status_filter) seeded a "Compliance project
    # filter" column on every application.
    tools = [{"name": "list_applications", "source": "decorator",
              "params": [_p("project_filter"), _p("status_filter")]},
             {"name": "create_application", "source": "decorator",
              "params": [_p("name", required=True), _p("project", required=True)]}]
    model = build_model("argocd-mcp", tools)
    listing = next(b for b in model.bindings if b.tool == "list_applications")
    assert listing.columns == {"project_filter": "project", "status_filter": "status"}
    assert not {"project_filter", "status_filter"} & set(model.entities["application"].columns)


def test_a_freely_set_status_takes_values_of_the_records_kind():
    # Google Ads campaigns were "in progress", BambooHR users "open".
    from agentworld.servers.world.mined.model import free_statuses
    assert free_statuses("campaign") == ("enabled", "paused", "removed")
    assert free_statuses("ad_group") == ("enabled", "paused", "removed")
    assert free_statuses("zone")[0] == "active"
    assert free_statuses("task") == ("open", "in progress", "done")
    assert "in progress" not in free_statuses("user")
    tools = [{"name": "list_campaigns", "source": "decorator", "params": [_p("status")]},
             {"name": "create_campaign", "source": "decorator",
              "params": [_p("name", required=True), _p("status")]}]
    model = build_model("ads-mcp", tools)
    assert model.entities["campaign"].columns["status"].vocab == ("enabled", "paused",
                                                                 "removed")

"""Small tool surfaces in the snapshot's fact format, written here for the tests (the shapes
real MCP servers publish: a project tracker keyed by integer ids, a price feed keyed by a
symbol)."""

from __future__ import annotations


def _p(name, kind="string", required=False, **extra):
    return {"name": name, "type": kind, "required": required, **extra}


TRACKER_TOOLS = [
    {"name": "tracker_list_projects", "source": "decorator",
     "params": [_p("limit", "integer"), _p("page", "integer"), _p("query")]},
    {"name": "tracker_get_project", "source": "decorator",
     "params": [_p("project_id", "integer", True)]},
    {"name": "tracker_create_project", "source": "decorator",
     "params": [_p("name", required=True), _p("description"), _p("budget", "number")]},
    {"name": "tracker_list_tasks", "source": "decorator",
     "params": [_p("project_id", "integer"), _p("status", enum=["todo", "doing", "done"]),
                _p("sort_by"), _p("limit", "integer")]},
    {"name": "tracker_get_task", "source": "decorator",
     "params": [_p("task_id", "integer", True)]},
    {"name": "tracker_create_task", "source": "decorator",
     "params": [_p("project_id", "integer", True), _p("title", required=True),
                _p("priority", "integer", enum=[1, 2, 3]), _p("due_date"),
                _p("labels", "array", items="string")]},
    {"name": "tracker_update_task", "source": "decorator",
     "params": [_p("task_id", "integer", True), _p("title"), _p("due_date"),
                _p("priority", "integer", enum=[1, 2, 3])]},
    {"name": "tracker_delete_project", "source": "decorator",
     "params": [_p("project_id", "integer", True)]},
    {"name": "tracker_close_task", "source": "decorator",
     "params": [_p("task_id", "integer", True), _p("resolution")]},
    {"name": "tracker_reopen_task", "source": "decorator",
     "params": [_p("task_id", "integer", True)]},
    {"name": "tracker_add_comment", "source": "decorator",
     "params": [_p("task_id", "integer", True), _p("body", required=True)]},
    {"name": "tracker_list_comments", "source": "decorator",
     "params": [_p("task_id", "integer", True)]},
    {"name": "tracker_get_project_stats", "source": "decorator",
     "params": [_p("project_id", "integer")]},
    {"name": "tracker_run_script", "source": "decorator", "params": [_p("code", required=True)]},
    {"name": "tracker_take_screenshot", "source": "decorator", "params": []},
    {"name": "tracker_frobnicate", "source": "decorator", "params": []},
]

PRICES_TOOLS = [
    {"name": "get_price", "source": "decorator", "params": [_p("symbol", required=True)]},
    {"name": "get_order_book", "source": "decorator",
     "params": [_p("symbol", required=True), _p("depth", "integer")]},
    {"name": "list_orders", "source": "decorator",
     "params": [_p("symbol"), _p("limit", "integer")]},
    {"name": "create_order", "source": "decorator",
     "params": [_p("symbol", required=True), _p("side", required=True, enum=["buy", "sell"]),
                _p("quantity", "number", True), _p("price", "number")]},
    {"name": "cancel_order", "source": "decorator",
     "params": [_p("order_id", required=True)]},
    {"name": "get_order_status", "source": "decorator",
     "params": [_p("order_id", required=True)]},
    {"name": "list_prices", "source": "decorator", "params": [_p("limit", "integer")]},
]

# A digital audio workstation bridge: tracks and items named by index, fields set one at a time,
# call switches, parameters whose class the static reader could not resolve.
STUDIO_TOOLS = [
    {"name": "create_track", "source": "decorator", "params": [_p("name", required=True)]},
    {"name": "get_track_list", "source": "decorator", "params": []},
    {"name": "rename_track", "source": "decorator",
     "params": [_p("track_index", "integer", True), _p("new_name", required=True)]},
    {"name": "set_track_color", "source": "decorator",
     "params": [_p("track_index", "integer", True), _p("color", required=True)]},
    {"name": "insert_audio_item", "source": "decorator",
     "params": [_p("track_index", "integer", True), _p("file_path", required=True),
                _p("start_time", "number"), _p("end_time", "number"),
                _p("take_metadata", "object"), _p("overwrite", "boolean")]},
    {"name": "get_item_properties", "source": "decorator",
     "params": [_p("item", "any", True)]},
    {"name": "delete_item", "source": "decorator", "params": [_p("item", "any", True)]},
    {"name": "list_items", "source": "decorator",
     "params": [_p("track_index", "integer"), _p("limit", "object"), _p("include_muted", "boolean")]},
    {"name": "update_item", "source": "decorator",
     "params": [_p("item_id", "any", True), _p("title", "object"), _p("version"),
                _p("checksum_sha256"), _p("operation", enum=["replace", "append"])]},
    {"name": "create_region", "source": "decorator",
     "params": [_p("name", required=True), _p("start_time", "number"), _p("end_time", "number")]},
]


def record(name, tools, *, l1="Software Development", l2="Issue Tracking & Project Management",
           version="1.2.0", selected=True, duplicate_of=""):
    return {"name": name, "version": version, "status": "mined", "file": f"{name}-{version}.whl",
            "sha256": "ab" * 32, "kind": "wheel", "licence": "MIT", "reason": "", "tools": tools,
            "problems": {}, "summary_terms": [], "duplicate_of": duplicate_of, "fit": {},
            "selected": selected, "l1": l1, "l2": l2}

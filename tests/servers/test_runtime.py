import sqlite3

import pytest

from agentworld.servers import ErrorCode, Session
from agentworld.servers.errors import SessionClosedError
from agentworld.servers.runtime import MAX_ARGUMENT_CHARS


@pytest.fixture
def session(tiny_env):
    s = Session(tiny_env, seed=3)
    yield s
    s.close()


def test_success_writes_and_returns_structured_data(session):
    result = session.call("add_item", {"list_id": "lst_home", "title": "Buy milk"})
    assert result.ok
    item = result.data["item"]
    row = session.db.execute("SELECT title, status FROM items WHERE id = ?",
                             (item["id"],)).fetchone()
    assert tuple(row) == ("Buy milk", "open")


@pytest.mark.parametrize("name, arguments, code", [
    ("add_item", {"list_id": 5, "title": "x"}, "VALIDATION_ERROR"),
    ("add_item", {"list_id": "lst_home"}, "VALIDATION_ERROR"),
    ("add_item", {"list_id": "lst_home", "title": "x", "extra": 1}, "VALIDATION_ERROR"),
    ("add_item", ["lst_home", "x"], "VALIDATION_ERROR"),
    ("add_item", "not an object", "VALIDATION_ERROR"),
    ("add_item", {"list_id": "lst_home", "title": "x" * 1_000_000}, "VALIDATION_ERROR"),
    ("add_item", {"list_id": "lst_home", "title": "nul\x00byte"}, "VALIDATION_ERROR"),
    ("add_item", {"list_id": "lst_nope", "title": "x"}, "NOT_FOUND"),
    ("add_item", {"list_id": "' OR 1=1; DROP TABLE items; --", "title": "x"}, "NOT_FOUND"),
    ("drop_everything", {}, "UNKNOWN_TOOL"),
    (None, {}, "UNKNOWN_TOOL"),
    ("complete_item", {"item_id": "itm_1", "nested": {"a": [[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]}},
     "VALIDATION_ERROR"),
])
def test_bad_input_is_a_tool_error_and_changes_nothing(session, name, arguments, code):
    before = session.hash()
    result = session.call(name, arguments)
    assert not result.ok and result.code == code, result
    assert result.error["message"]
    assert session.hash() == before
    # The session keeps serving after the bad call.
    assert session.call("list_items", {"list_id": "lst_home"}).ok


def test_argument_bound_is_enforced_before_schema(session):
    title = "y" * (MAX_ARGUMENT_CHARS + 1)
    result = session.call("add_item", {"list_id": "lst_home", "title": title})
    assert result.code == "VALIDATION_ERROR" and "too large" in result.error["message"]


def test_unicode_is_stored_exactly(session):
    title = "Café ☕ — 日本語 🚀 \u202e"
    item = session.call("add_item", {"list_id": "lst_work", "title": title}).data["item"]
    stored = session.db.execute("SELECT title FROM items WHERE id = ?", (item["id"],)).fetchone()[0]
    assert stored == title


def test_sql_looking_strings_are_data_not_sql(session):
    title = "Robert'); DROP TABLE items;--"
    assert session.call("add_item", {"list_id": "lst_home", "title": title}).ok
    count = session.db.execute("SELECT count(*) FROM items WHERE title = ?", (title,)).fetchone()[0]
    assert count == 1


def test_business_rule_refusal_rolls_back(session):
    assert session.call("complete_item", {"item_id": "itm_2"}).ok
    before = session.hash()
    result = session.call("complete_item", {"item_id": "itm_2"})
    assert result.code == ErrorCode.CONFLICT
    assert session.hash() == before


def test_crash_after_write_rolls_back_and_hides_internals(session, caplog):
    before = session.hash()
    result = session.call("write_then_crash", {"title": "ghost"})
    assert result.code == "INTERNAL_ERROR"
    assert "boom" not in result.error["message"]
    assert session.hash() == before
    assert "crashed" in caplog.text


def test_new_session_starts_at_template_state(tiny_env):
    first = Session(tiny_env)
    assert first.call("add_item", {"list_id": "lst_home", "title": "x"}).ok
    second = Session(tiny_env)
    assert second.hash() == tiny_env.template.hash != first.hash()


def test_sessions_never_see_each_others_writes(tiny_env):
    a, b = Session(tiny_env, seed=1), Session(tiny_env, seed=1)
    a.call("complete_item", {"item_id": "itm_3"})
    b_items = b.call("list_items", {"list_id": "lst_home"}).data["items"]
    assert next(i for i in b_items if i["id"] == "itm_3")["status"] == "open"


def test_same_seed_same_calls_same_outputs_and_hash(tiny_env):
    calls = [("add_item", {"list_id": "lst_home", "title": "a"}),
             ("complete_item", {"item_id": "itm_1"}),
             ("add_item", {"list_id": "lst_work", "title": "b"}),
             ("complete_item", {"item_id": "itm_1"})]

    def replay(seed):
        s = Session(tiny_env, seed=seed)
        return [s.call(n, a).payload() for n, a in calls], s.hash()

    assert replay(11) == replay(11)
    assert replay(11)[0] != replay(12)[0]  # ids depend on the seed


def test_tools_cannot_attach_other_databases(session, tmp_path):
    with pytest.raises(sqlite3.DatabaseError):
        session.db.execute("ATTACH DATABASE ? AS other", (str(tmp_path / "x.db"),))


def test_closed_session_refuses_calls(tiny_env):
    s = Session(tiny_env)
    s.close()
    with pytest.raises(SessionClosedError):
        s.call("list_items", {"list_id": "lst_home"})

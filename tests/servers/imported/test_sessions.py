"""Runtime sessions on imported environments: folders, the SQLite view, failures, replays."""

from __future__ import annotations

import json

import pytest

from agentworld.servers import Session
from agentworld.servers.imported import FolderBackend, map_release_error

BORROW = ("borrow_book", {"member_id": "mem_1", "book_id": "bk_1"})


@pytest.fixture
def library(catalog):
    return catalog.load("aw-0000001")


@pytest.fixture
def widgets(catalog):
    return catalog.load("aw-0000002")


def _rows(session, sql):
    return [dict(r) for r in session.db.execute(sql)]


def test_catalog_lists_imported_envs_with_their_taxonomy(catalog):
    assert catalog.ids() == ["aw-0000001", "aw-0000002"]
    manifest = catalog.manifest("aw-0000001")
    assert manifest.taxonomy.l2 == "Libraries" and "imported" in manifest.tags
    assert "Member e-mails are unique." in manifest.rules[0].text
    assert "../aw-0000001" not in catalog and "aw-0000003" not in catalog


def test_writes_reach_the_sqlite_view_and_stay_private(library):
    a, b = Session(library, seed=1), Session(library, seed=1)
    try:
        result = a.call(*BORROW)
        assert result.ok, result.error
        loan = result.data["loan"]
        assert _rows(a, "SELECT status FROM books WHERE id = 'bk_1'") == [{"status": "on_loan"}]
        viewed = _rows(a, f"SELECT * FROM loans WHERE id = '{loan['id']}'")[0]
        assert json.loads(viewed["meta"]) == {"renewals": 0}
        # The other session sees neither the file nor the view change.
        assert _rows(b, "SELECT status FROM books WHERE id = 'bk_1'") == [{"status": "available"}]
        assert b.call(*BORROW).ok
        assert a.hash() == b.hash()            # same seed, same calls: same state
        assert b.call("count_loans").data == {"loans": 2}
    finally:
        a.close(), b.close()


def test_replays_are_identical_and_the_clock_is_the_sessions(library):
    def episode(seed):
        session = Session(library, seed=seed)
        try:
            outputs = [session.call(*BORROW).payload(),
                       session.call("add_member", {"name": "Bo", "email": "bo@x.org"}).payload()]
            return outputs, session.hash()
        finally:
            session.close()

    first, again, other = episode(5), episode(5), episode(6)
    assert first == again
    assert first[0][0]["loan"]["id"] != other[0][0]["loan"]["id"]
    assert first[0][0]["loan"]["borrowed_at"] == "2026-03-02T09:00:30"   # epoch + one tick
    assert first[0][1]["member"]["joined"] == "2026-03-02"


def test_failed_call_changes_nothing(widgets):
    session = Session(widgets)
    try:
        before = session.hash()
        folder = FolderBackend.folder(session.ctx)
        original = (folder / "widgets.json").read_bytes()
        result = session.call("write_then_fail", {"name": "n"})
        assert result.code == "INTERNAL_ERROR" and "RuntimeError" in result.error["message"]
        assert (folder / "widgets.json").read_bytes() == original
        assert session.hash() == before
    finally:
        session.close()


def test_misbehaving_tools_become_tool_errors_and_the_next_call_works(widgets):
    session = Session(widgets)
    try:
        loop = session.call("spin_forever")
        assert loop.code == "LIMIT_EXCEEDED" and loop.error["details"]["limit"] == "time"
        assert session.call("get_widget", {"widget_id": "w_1"}).data["widget"]["name"] == \
            "Sprocket"
        network = session.call("phone_home", {"host": "127.0.0.1"})
        assert network.code == "FORBIDDEN" and "socket" in json.dumps(network.error)
        secrets = session.call("read_secrets")
        assert secrets.code == "FORBIDDEN"
        assert "/etc/passwd" in secrets.error["details"]["refused"][0]
        assert "root:" not in json.dumps(secrets.payload())
        junk = session.call("junk_reply")
        assert junk.code == "INTERNAL_ERROR" and "list" in junk.error["message"]
        boom = session.call("explode")
        assert boom.code == "INTERNAL_ERROR" and "ZeroDivisionError" in boom.error["message"]
        assert session.call("get_widget", {"widget_id": "w_2"}).ok
    finally:
        session.close()


def test_release_errors_map_to_stable_codes(library):
    session = Session(library)
    try:
        missing = session.call("get_book", {"book_id": "bk_9"})
        assert missing.code == "NOT_FOUND"
        assert missing.error["details"]["release_code"] == "BOOK_NOT_FOUND"
        taken = session.call("add_member", {"name": "A", "email": "ada@example.org"})
        assert taken.code == "CONFLICT"
        assert session.call("borrow_book", {"member_id": "mem_1", "book_id": "bk_3"}).code == \
            "PRECONDITION_FAILED"
        assert session.call("list_books", {"surprise": 1}).code == "VALIDATION_ERROR"
        assert session.call("submit_tool", {"title": "x"}).data == {"suggested": "x"}
    finally:
        session.close()


@pytest.mark.parametrize("error, code", [
    ({"code": "VALIDATION_ERROR", "message": "m"}, "VALIDATION_ERROR"),
    ({"code": "invalid-date", "message": "m"}, "VALIDATION_ERROR"),
    ({"code": "PERMISSION_DENIED"}, "FORBIDDEN"),
    ({"code": "RATE_LIMITED"}, "LIMIT_EXCEEDED"),
    ({"code": "SOMETHING_ODD"}, "PRECONDITION_FAILED"),
    ("a plain string", "PRECONDITION_FAILED"),
])
def test_error_code_mapping(error, code):
    assert map_release_error(error).code.value == code


def test_session_folder_is_removed_at_close(library):
    session = Session(library)
    folder = FolderBackend.folder(session.ctx)
    assert (folder / "books.json").is_file()
    session.close()
    assert not folder.exists()


def test_release_questions_are_answer_match_tasks(library):
    task = library.task("question-1")
    assert task.kind == "answer-match" and task.reference_answer == "2"
    assert task.metadata["grading_rubric"] == [{"check": "answers 2", "points": 1}]
    from agentworld.servers.tasks import VerifierInput

    initial = library.template.clone()
    try:
        def score(answer):
            return task.verifier(VerifierInput(initial, initial, answer, ())).reward

        assert score(None) == 0.0 and score("3") == 0.0
        assert score("2") == 1.0 and score(" Two? no: 2. ") == 1.0 and score("2.0") == 1.0
    finally:
        initial.close()

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


@pytest.fixture
def maildesk(catalog):
    return catalog.load("aw-0000004")


def _rows(session, sql):
    return [dict(r) for r in session.db.execute(sql)]


def test_catalog_lists_imported_envs_with_their_taxonomy(catalog):
    assert catalog.ids() == ["aw-0000001", "aw-0000002", "aw-0000004"]
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
        assert b.call("count_loans").data == {"loans": 3}
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
        assert junk.code == "INTERNAL_ERROR" and "not JSON" in junk.error["message"]
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
        on_loan = session.call("borrow_book", {"member_id": "mem_1", "book_id": "bk_3"})
        assert on_loan.code == "PRECONDITION_FAILED"
        # The release's payload is kept whole, extra fields included.
        assert on_loan.error["details"]["release_error"] == {
            "code": "INVALID_STATE", "message": "the book is on loan", "status": "on_loan"}
        assert session.call("list_books", {"surprise": 1}).code == "VALIDATION_ERROR"
        assert session.call("submit_tool", {"title": "x"}).data == {"suggested": "x"}
    finally:
        session.close()


@pytest.mark.parametrize("error, code", [
    ({"code": "VALIDATION_ERROR", "message": "m"}, "VALIDATION_ERROR"),
    ({"code": "invalid-date", "message": "m"}, "VALIDATION_ERROR"),
    ({"code": "PERMISSION_DENIED"}, "FORBIDDEN"),
    ({"code": "UNAUTHORIZED", "allowed": ["admin"]}, "FORBIDDEN"),
    ({"code": "RATE_LIMITED"}, "LIMIT_EXCEEDED"),
    ({"code": "SOMETHING_ODD"}, "PRECONDITION_FAILED"),
    ("a plain string", "PRECONDITION_FAILED"),
])
def test_error_code_mapping_keeps_the_original_beside_it(error, code):
    mapped = map_release_error(error)
    assert mapped.code.value == code
    assert mapped.details["release_error"] == error
    assert mapped.details["release_code"] == (error.get("code") if isinstance(error, dict)
                                              else None)


def test_session_folder_is_removed_at_close(library):
    session = Session(library)
    folder = FolderBackend.folder(session.ctx)
    assert (folder / "books.json").is_file()
    session.close()
    assert not folder.exists()


def test_lists_and_scalars_are_served_as_returned(library):
    session = Session(library)
    try:
        authors = session.call("list_authors")
        assert authors.ok and [a["id"] for a in authors.data["result"]] == [
            "au_1", "au_2", "au_3", "au_4"]
        assert session.call("count_books").data == {"result": 6}
        loans = session.call("member_loans", {"member_id": "mem_2"})
        assert [loan["book_id"] for loan in loans.data["result"]] == ["bk_6"]
    finally:
        session.close()


def test_email_zoneinfo_csv_and_the_release_error_payloads(maildesk):
    session = Session(maildesk)
    try:
        message = session.call("read_message", {"message_id": "msg_1"})
        assert message.ok, message.error
        assert message.data["subject"] == "Quarterly numbers"
        assert message.data["sent"] == "2026-03-03T09:15:00+00:00"
        assert message.data["body"] == "Please send the quarterly numbers by Friday."
        reply = session.call("compose_reply", {"message_id": "msg_1", "text": "On it."})
        assert reply.ok, reply.error
        assert "On it." in reply.data["draft"]["raw"] and "@localhost>" in \
            reply.data["draft"]["header_id"]
        local = session.call("local_time", {"user": "kenji", "meeting_id": "mt_1"})
        assert local.data["local"] == "2026-03-05T18:00:00+09:00"
        lisbon = session.call("local_time", {"user": "ana", "meeting_id": "mt_1"})
        assert lisbon.data["local"] == "2026-03-05T09:00:00+00:00"
        contacts = session.call("contacts")
        assert [c["city"] for c in contacts.data["result"]] == ["Lisbon", "Tokyo"]
        denied = session.call("admin_report", {"api_key": "key-guest"})
        assert denied.code == "FORBIDDEN"
        assert denied.error["details"]["release_code"] == "UNAUTHORIZED"
        assert denied.error["details"]["release_error"]["allowed"] == ["admin"]
        text = session.call("local_time", {"user": "zed", "meeting_id": "mt_1"})
        assert text.error["details"]["release_error"] == "unknown user zed"
        assert session.call("admin_report", {"api_key": "key-admin"}).data == {"messages": 1}
    finally:
        session.close()


def test_secrets_urandom_and_uuid_are_seeded_per_session(maildesk):
    def tokens(seed):
        session = Session(maildesk, seed=seed)
        try:
            return [session.call("issue_token", {"user": "ana"}).data for _ in range(2)]
        finally:
            session.close()

    first, again, other = tokens(7), tokens(7), tokens(8)
    assert first == again                       # two fresh sessions, the same ids
    assert first[0]["token"] != first[1]["token"]  # but every call draws new ones
    assert first[0]["token"] != other[0]["token"] and first[0]["salt"] != other[0]["salt"]

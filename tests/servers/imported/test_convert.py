"""``agentworld import agent-world``: what lands on disk, and what the report says."""

from __future__ import annotations

import json

import pytest
import sqlite_utils

from agentworld.cli import main
from agentworld.servers.imported import FORMAT
from agentworld.servers.imported.convert import _read_only

from .release_fixture import BROKEN, LIBRARY, MAILDESK, WIDGETS


def _by_source(report):
    return {e.source_id: e for e in report.environments}


def test_report_lists_imported_and_failed_with_reasons(imported):
    out, report = imported
    envs = _by_source(report)
    assert [e.env_id for e in report.imported] == ["aw-0000001", "aw-0000002", "aw-0000004"]
    library, widgets, broken = envs[LIBRARY], envs[WIDGETS], envs[BROKEN]
    assert (library.tools, library.tables, library.rows, library.tasks) == (11, 4, 14, 3)
    assert library.renamed == {"submit": "submit_tool"}
    assert "does not parse" in library.refused_tools["broken_syntax"]
    assert "get_book" not in library.tightened and "list_books" in library.tightened
    assert widgets.tools == 7 and widgets.tasks == 0
    assert broken.status == "failed" and "not valid JSON" in broken.reason
    assert not (out / "aw-0000003").exists()
    saved = json.loads((out / "import-report.json").read_text())
    assert saved["imported"] == 3 and saved["failed"] == 1


def test_metadata_block_gives_taxonomy_title_and_description(imported):
    out, _ = imported
    doc = json.loads((out / "aw-0000001" / "environment.json").read_text())
    assert doc["format"] == FORMAT and doc["id"] == "aw-0000001"
    assert doc["taxonomy"] == {"l1": "Communication & General Utilities", "l2": "Libraries",
                               "l3": "Book lending"}
    assert doc["title"] == "Neighbourhood Library MCP Server"
    assert doc["description"] == \
        "Lends books to members and answers questions about the catalogue."


def test_environment_folder_holds_manifest_tools_rules_view_and_tasks(imported):
    out, _ = imported
    folder = out / "aw-0000001"
    doc = json.loads((folder / "environment.json").read_text())
    tools = {t["name"]: t for t in doc["tools"]}
    assert tools["submit_tool"]["release_name"] == "submit"
    assert tools["list_books"]["input_schema"]["additionalProperties"] is False
    assert tools["count_loans"]["input_schema"] == {"type": "object", "properties": {},
                                                    "additionalProperties": False}
    assert "Member e-mails are unique." in (folder / "rules.md").read_text()
    questions = json.loads((folder / "tasks.json").read_text())
    assert [q["reference_answer"] for q in questions][:2] == ["4", "Ada"]
    assert questions[0]["grading_rubric"]["verified_tool_chain"] == [
        {"tool": "list_books", "args": {"genre": "scifi"}}]
    assert (folder / "data" / "books.json").is_file()


def test_reads_and_writes_are_told_apart_by_what_the_code_does(imported):
    # Every tool defines the release's nested _save helper; only those that call it write.
    out, _ = imported
    kinds = {t["name"]: t["kind"] for t in json.loads(
        (out / "aw-0000001" / "environment.json").read_text())["tools"]}
    writes = {name for name, kind in kinds.items() if kind == "mutation"}
    assert writes == {"borrow_book", "add_member"}
    assert sum(kind == "query" for kind in kinds.values()) == 9
    mail = {t["name"]: t["read_only"] for t in json.loads(
        (out / "aw-0000004" / "environment.json").read_text())["tools"]}
    assert not mail["compose_reply"] and not mail["issue_token"] and mail["local_time"]


@pytest.mark.parametrize("source, writes", [
    ("def t(**_extra):\n    x = 'a'.replace('a', 'b')\n    [1].remove(1)\n    return {}\n", False),
    ("def t(p, **_extra):\n    import os\n    os.remove(p)\n    return {}\n", True),
    ("def t(p, **_extra):\n    from pathlib import Path\n    Path(p).write_text('x')\n"
     "    return {}\n", True),
    ("def t(p, m, **_extra):\n    open(p, m).close()\n    return {}\n", True),
    ("def t(p, **_extra):\n    def helper():\n        open(p, 'a').close()\n"
     "    return {'n': 1}\n", False),
    ("def t(p, **_extra):\n    def helper():\n        open(p, 'a').close()\n"
     "    run = helper\n    run()\n    return {}\n", True),
])
def test_read_only_analysis(source, writes):
    assert _read_only(source, "t") is (not writes)


def test_view_is_a_real_sqlite_file_with_one_table_per_collection(imported):
    out, _ = imported
    db = sqlite_utils.Database(out / "aw-0000001" / "view.sqlite")
    assert set(db.table_names()) == {"authors", "books", "members", "loans"}
    assert db["books"].count == 6
    loan = next(db["loans"].rows)
    assert json.loads(loan["meta"]) == {"renewals": 1}    # nested values as JSON text
    assert db["books"].columns_dict["year"] is int


def test_dict_shaped_collections_and_other_data_files(imported):
    out, report = imported
    db = sqlite_utils.Database(out / "aw-0000004" / "view.sqlite")
    rows = {r["_key"]: r for r in db["settings"].rows}
    assert rows["kenji"]["timezone"] == "Asia/Tokyo" and rows["kenji"]["id"] == "kenji"
    data = out / "aw-0000004" / "data"
    assert (data / "contacts.csv").is_file() and (data / "inbox" / "msg_1.eml").is_file()
    notes = " ".join(_by_source(report)[MAILDESK].notes)
    assert "contacts.csv" in notes and "inbox/msg_1.eml" in notes


def test_taxonomy_falls_back_to_older_blocks_and_readme(imported):
    out, _ = imported
    doc = json.loads((out / "aw-0000002" / "environment.json").read_text())
    assert doc["taxonomy"]["l1"] == "Software Development"       # data.meta.domain
    assert doc["title"] == "Widget Shop"                           # README heading


def test_questions_json_list_and_dict_and_legacy_names(tmp_path):
    from agentworld.servers.imported.release import ReleaseError, _question_list

    tasks = [{"task": "t", "reference_answer": "a"}]
    assert _question_list({"env_id": "1", "name": "n", "tasks": tasks}, "x") == tasks
    assert _question_list(tasks, "x") == tasks
    with pytest.raises(ReleaseError, match="no tasks list"):
        _question_list({"env_id": "1"}, "x")
    with pytest.raises(ReleaseError, match="not a list"):
        _question_list({"tasks": "nope"}, "x")


def test_questions_parquet_is_read_when_there_is_no_json(imported):
    pytest.importorskip("pyarrow")
    out, report = imported
    assert _by_source(report)[MAILDESK].tasks == 1
    question = json.loads((out / "aw-0000004" / "tasks.json").read_text())[0]
    assert question["reference_answer"] == "Tokyo"
    assert question["grading_rubric"]["verified_tool_chain"] == [{"tool": "contacts",
                                                                  "args": {}}]


def test_cli_import_prints_a_table_or_json(release, tmp_path, capsys):
    assert main(["import", "agent-world", str(release), "--out", str(tmp_path)]) == 1
    table = capsys.readouterr().out
    assert "aw-0000001" in table and "failed" in table and "3 imported, 1 failed" in table
    assert main(["import", "agent-world", str(release / "environment_mix"),
                 "--out", str(tmp_path), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["imported"] == 3
    assert main(["import", "agent-world", str(tmp_path / "nope"), "--out", str(tmp_path)]) == 2


def test_cli_serves_imported_envs_from_the_import_dir(imported, monkeypatch, capsys):
    out, _ = imported
    monkeypatch.setenv("AGENTWORLD_IMPORT_DIR", str(out))
    assert main(["envs", "--json"]) == 0
    ids = {row["id"] for row in json.loads(capsys.readouterr().out)}
    assert {"aw-0000001", "aw-0000002", "notion"} <= ids
    assert main(["call", "aw-0000001", "get_book", '{"book_id": "bk_2"}']) == 0
    assert json.loads(capsys.readouterr().out)["book"]["title"] == "Emma"

"""``agentworld import agent-world``: what lands on disk, and what the report says."""

from __future__ import annotations

import json

import sqlite_utils

from agentworld.cli import main
from agentworld.servers.imported import FORMAT

from .release_fixture import BROKEN, LIBRARY, WIDGETS


def _by_source(report):
    return {e.source_id: e for e in report.environments}


def test_report_lists_imported_and_failed_with_reasons(imported):
    out, report = imported
    envs = _by_source(report)
    assert [e.env_id for e in report.imported] == ["aw-0000001", "aw-0000002"]
    library, widgets, broken = envs[LIBRARY], envs[WIDGETS], envs[BROKEN]
    assert (library.tools, library.tables, library.rows, library.tasks) == (6, 3, 5, 2)
    assert library.renamed == {"submit": "submit_tool"}
    assert "does not parse" in library.refused_tools["broken_syntax"]
    assert "get_book" not in library.tightened and "list_books" in library.tightened
    assert widgets.tools == 7 and widgets.tasks == 0
    assert broken.status == "failed" and "not valid JSON" in broken.reason
    assert not (out / "aw-0000003").exists()
    saved = json.loads((out / "import-report.json").read_text())
    assert saved["imported"] == 2 and saved["failed"] == 1


def test_environment_folder_holds_manifest_tools_rules_view_and_tasks(imported):
    out, _ = imported
    folder = out / "aw-0000001"
    doc = json.loads((folder / "environment.json").read_text())
    assert doc["format"] == FORMAT and doc["id"] == "aw-0000001"
    assert doc["taxonomy"] == {"l1": "Communication & General Utilities", "l2": "Libraries",
                               "l3": "Book lending"}
    assert doc["title"] == "Neighbourhood Library"
    assert doc["description"] == "A small lending library: books, members and loans."
    tools = {t["name"]: t for t in doc["tools"]}
    assert tools["submit_tool"]["release_name"] == "submit"
    assert tools["list_books"]["input_schema"]["additionalProperties"] is False
    assert tools["count_loans"]["input_schema"] == {"type": "object", "properties": {},
                                                    "additionalProperties": False}
    assert tools["list_books"]["read_only"] and not tools["borrow_book"]["read_only"]
    assert "Member e-mails are unique." in (folder / "rules.md").read_text()
    assert json.loads((folder / "tasks.json").read_text())[0]["reference_answer"] == "2"
    assert (folder / "data" / "books.json").is_file()


def test_view_is_a_real_sqlite_file_with_one_table_per_collection(imported):
    out, _ = imported
    db = sqlite_utils.Database(out / "aw-0000001" / "view.sqlite")
    assert set(db.table_names()) == {"books", "members", "loans"}
    assert db["books"].count == 3
    loan = next(db["loans"].rows)
    assert json.loads(loan["meta"]) == {"renewals": 1}    # nested values as JSON text
    assert db["books"].columns_dict["year"] is int


def test_taxonomy_falls_back_to_meta_and_readme(imported):
    out, _ = imported
    doc = json.loads((out / "aw-0000002" / "environment.json").read_text())
    assert doc["taxonomy"]["l1"] == "Software Development"       # data.meta.domain
    assert doc["title"] == "Widget Shop"                           # README heading


def test_cli_import_prints_a_table_or_json(release, tmp_path, capsys):
    assert main(["import", "agent-world", str(release), "--out", str(tmp_path)]) == 1
    table = capsys.readouterr().out
    assert "aw-0000001" in table and "failed" in table and "2 imported, 1 failed" in table
    assert main(["import", "agent-world", str(release / "environment_mix"),
                 "--out", str(tmp_path), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["imported"] == 2
    assert main(["import", "agent-world", str(tmp_path / "nope"), "--out", str(tmp_path)]) == 2


def test_cli_serves_imported_envs_from_the_import_dir(imported, monkeypatch, capsys):
    out, _ = imported
    monkeypatch.setenv("AGENTWORLD_IMPORT_DIR", str(out))
    assert main(["envs", "--json"]) == 0
    ids = {row["id"] for row in json.loads(capsys.readouterr().out)}
    assert {"aw-0000001", "aw-0000002", "notion"} <= ids
    assert main(["call", "aw-0000001", "get_book", '{"book_id": "bk_2"}']) == 0
    assert json.loads(capsys.readouterr().out)["book"]["title"] == "Emma"

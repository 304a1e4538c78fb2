"""Graph-based tasks on imported environments: made on request, never while loading."""

from __future__ import annotations

import json
import shutil

import pytest

from agentworld.cli import main
from agentworld.servers import Catalog
from agentworld.servers.imported.probe import merge_shapes, probe_outputs, shape_of
from agentworld.servers.taskgen.answers import answer_matches
from agentworld.servers.taskgen.generate import GenerationReport
from agentworld.servers.taskgen.graph import ToolGraph
from agentworld.servers.taskgen.store import TaskStore


@pytest.fixture
def own_copy(imported, tmp_path):
    """A private copy of the imported library: probing rewrites environment.json."""
    out, _ = imported
    shutil.copytree(out / "aw-0000001", tmp_path / "imported" / "aw-0000001")
    return tmp_path / "imported"


def test_shapes_are_structure_only():
    shape = shape_of({"book": {"id": "b", "tags": ["x"]}, "n": 1, "rows": [{"a": 1}, {"b": 2}]})
    assert shape == {"properties": {"book": {"properties": {"id": {}, "tags": {"items": {}}}},
                                    "n": {}, "rows": {"items": {"properties": {"a": {}, "b": {}}}}}}
    assert merge_shapes({"properties": {"a": {}}}, {"properties": {"b": {}}}) == {
        "properties": {"a": {}, "b": {}}}


def test_probing_links_the_tool_graph(own_copy, pool):
    catalog = Catalog(modules={}, import_dirs=[own_copy], sandbox=pool)
    before = ToolGraph.of(catalog.load("aw-0000001").tools)
    assert "get_author" not in before.edges["get_book"]     # no output schema, no edges
    # Nine tools answer; the two writes refuse the drawn arguments (a loaned book, a taken
    # e-mail) and keep the plain object schema.
    assert probe_outputs(own_copy / "aw-0000001", catalog.load("aw-0000001")) == 9
    probed = Catalog(modules={}, import_dirs=[own_copy], sandbox=pool).load("aw-0000001")
    graph = ToolGraph.of(probed.tools)
    assert "get_author" in graph.edges["get_book"]           # book.author_id -> author_id
    assert graph.nodes["list_books"].kind == "query"
    assert graph.nodes["borrow_book"].kind == "mutation"
    # A probed schema never refuses an output: the list tool still answers.
    from agentworld.servers import Session

    session = Session(probed)
    try:
        assert session.call("list_authors").ok and session.call("count_books").ok
    finally:
        session.close()


def test_loading_an_imported_env_never_synthesizes_tasks(imported, pool, tmp_path):
    out, _ = imported
    catalog = Catalog(modules={}, import_dirs=[out], sandbox=pool, task_dir=tmp_path / "tasks")
    env = catalog.load("aw-0000001")
    assert [t.kind for t in env.tasks] == ["release-question"] * 3
    assert not (tmp_path / "tasks").exists()


@pytest.mark.slow
def test_tasks_generate_makes_at_least_ten_graph_tasks_for_a_mostly_read_env(
        own_copy, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("AGENTWORLD_IMPORT_DIR", str(own_copy))
    monkeypatch.setenv("AGENTWORLD_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["tasks", "generate", "aw-0000001", "--quiet"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["imported"]["aw-0000001"] >= 10
    records = TaskStore(tmp_path / "cache" / "tasks").load("aw-0000001")
    assert len(records) >= 10
    books = {b["id"]: b for b in json.loads(
        (own_copy / "aw-0000001" / "data" / "books.json").read_text())}
    for record in records:
        for _tool, arguments in record.reference_calls:
            if "book_id" in arguments:
                assert arguments["book_id"] in books               # a real row, never "id"
        for check in record.checks:                                # the answer is not given
            if check["kind"] == "answer":
                assert not answer_matches(check["spec"], record.prompt), record.prompt
    # Loaded again, the environment serves its stored graph tasks next to the questions.
    catalog = Catalog(modules={}, import_dirs=[own_copy], task_dir=tmp_path / "cache" / "tasks")
    try:
        kinds = [t.kind for t in catalog.load("aw-0000001").tasks]
    finally:
        catalog.close()
    assert kinds.count("release-question") == 3 and kinds.count("graph") >= 10


def test_tasks_generate_sees_the_import_folder(own_copy, monkeypatch, capsys, tmp_path):
    # A store that already holds the set is read back: this checks the command finds the
    # imported id (it used to answer "unknown") without paying for synthesis.
    monkeypatch.setenv("AGENTWORLD_IMPORT_DIR", str(own_copy))
    monkeypatch.setenv("AGENTWORLD_CACHE_DIR", str(tmp_path / "cache"))
    (own_copy / "aw-0000001" / "environment.json").write_text(json.dumps({**json.loads(
        (own_copy / "aw-0000001" / "environment.json").read_text()), "probed": True}))
    TaskStore(tmp_path / "cache" / "tasks").save("aw-0000001", [],
                                                 GenerationReport("aw-0000001"))
    assert main(["tasks", "generate", "aw-0000001", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["imported"] == {"aw-0000001": 0}
    assert main(["tasks", "generate", "aw-9999999", "--quiet"]) == 2

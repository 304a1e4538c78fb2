"""``import agent-world --verify``: our runtime against the release's harness semantics."""

from __future__ import annotations

import json
import shutil

import pytest

from agentworld.cli import main
from agentworld.servers.imported.arguments import draw_arguments, load_collections
from agentworld.servers.imported.verify import run_release_call, verify_imported


@pytest.fixture(scope="module")
def report(imported, pool):
    out, _ = imported
    return verify_imported(out, pool=pool)


def test_fixture_outcomes_are_identical_apart_from_listed_differences(report):
    figures = report.figures()
    assert figures["calls"] == 24 and figures["skipped"] == 0
    assert figures["identical_outcomes_apart_from_by_design"] == 1.0
    assert figures["identical_apart_from_by_design"] == 1.0
    by_tool = {(c.env_id, c.tool): c for c in report.checks}
    # The well-behaved environments: every outcome identical, results identical but for ids.
    for (env_id, tool), check in by_tool.items():
        if env_id != "aw-0000002":
            assert check.same_outcome, (tool, check)
    assert by_tool[("aw-0000004", "admin_report")].ours == "refused:UNAUTHORIZED"
    assert by_tool[("aw-0000004", "admin_report")].same_result
    assert by_tool[("aw-0000004", "issue_token")].differences == ["ids"]
    assert by_tool[("aw-0000001", "list_authors")].same_result
    # The misbehaving shop: what differs, differs by design, and says why.
    assert by_tool[("aw-0000002", "read_secrets")].differences == ["sandbox"]
    assert by_tool[("aw-0000002", "junk_reply")].differences == ["not-json"]
    assert by_tool[("aw-0000002", "explode")].same_outcome


def test_the_harness_runs_in_a_throwaway_copy(imported):
    out, _ = imported
    doc = json.loads((out / "aw-0000001" / "environment.json").read_text())
    before = (out / "aw-0000001" / "data" / "books.json").read_bytes()
    reply = run_release_call(doc["tools"], "borrow_book", {"member_id": "mem_1",
                                                           "book_id": "bk_1"},
                             out / "aw-0000001" / "data")
    assert reply["status"] == "ok" and reply["result"]["loan"]["book_id"] == "bk_1"
    assert (out / "aw-0000001" / "data" / "books.json").read_bytes() == before


def test_arguments_are_drawn_from_real_rows(imported):
    out, _ = imported
    collections = load_collections(out / "aw-0000004" / "data")
    schema = {"type": "object", "properties": {"user": {"type": "string"},
                                               "meeting_id": {"type": "string"}},
              "required": ["user", "meeting_id"]}
    assert draw_arguments(schema, collections) == {"user": "ana", "meeting_id": "mt_1"}
    assert draw_arguments({"properties": {"ghost_id": {"type": "string"}},
                           "required": ["ghost_id"]}, collections) is None
    # As in the release: model_id names the rows of trending_models.json.
    models = {"trending_models": [{"id": "Qwen/Qwen3.5-9B", "likes": 252}]}
    schema = {"properties": {"model_id": {"type": "string"}, "limit": {"type": "integer"}},
              "required": ["model_id"]}
    assert draw_arguments(schema, models) == {"model_id": "Qwen/Qwen3.5-9B"}


def test_cli_verify_prints_the_figures(release, tmp_path, capsys):
    # Without the shop whose tool never returns, which costs a full time limit each way.
    copy = tmp_path / "release"
    shutil.copytree(release, copy)
    shutil.rmtree(copy / "environment_mix" / "0000002")
    (copy / "environment_mix" / "0000002_step4_checkpoint.json").unlink()
    assert main(["import", "agent-world", str(copy), "--out", str(tmp_path / "out"), "--json",
                 "--verify"]) == 1                     # one environment fails to import
    verify = json.loads(capsys.readouterr().out)["verify"]
    assert verify["identical_outcomes"] == 1.0 and verify["calls"] == 17
    assert {c["env_id"] for c in verify["checks"]} == {"aw-0000001", "aw-0000004"}



def test_the_table_names_every_call_and_the_figures(report):
    table = report.table()
    assert "read_secrets" in table and "sandbox" in table
    assert "apart from the differences made by design" in table
    assert "identical outcomes 100.0%, identical results 100.0%" in table

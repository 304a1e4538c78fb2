"""The ``agentworld`` command, in process (``main(argv)``) and as a real console script."""

import json
import subprocess
import sys
from collections import Counter

import pytest

from agentworld.cli import main
from agentworld.servers.world.registry import world_cards


def test_envs_lists_and_filters(capsys):
    assert main(["envs", "--json"]) == 0
    ids = {row["id"] for row in json.loads(capsys.readouterr().out)}
    assert {"notion", "github", "airline"} <= ids
    assert main(["envs", "--json", "--category", "Travel & Transportation"]) == 0
    travel = {row["id"] for row in json.loads(capsys.readouterr().out)}
    served = Counter(c.l1 for c in world_cards().values())
    assert "airline" in travel and len(travel) == served["Travel & Transportation"] + 1
    assert main(["envs", "--json", "--category", "Lodging"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == Counter(
        c.l2 for c in world_cards().values())["Lodging"]


def test_show_prints_tools_rules_and_sources(capsys):
    assert main(["show", "github"]) == 0
    out = capsys.readouterr().out
    assert "merge_pull_request" in out and "Business rules:" in out and "Data sources:" in out
    assert main(["show", "airline", "--json"]) == 0
    described = json.loads(capsys.readouterr().out)
    assert described["content_hash"] and len(described["tools"]) >= 12


def test_call_runs_one_tool(capsys):
    assert main(["call", "airline", "search_airports", '{"query": "Tokyo"}']) == 0
    airports = {a["iata"] for a in json.loads(capsys.readouterr().out)["airports"]}
    assert airports & {"HND", "NRT"}


@pytest.mark.parametrize("argv, code", [
    (["call", "airline", "search_airports", "{not json"], 2),
    (["call", "airline", "search_airports", '{"query": 5}'], 1),
    (["call", "airline", "no_such_tool"], 1),
    (["call", "nope", "x"], 2),
    (["show", "nope"], 2),
    (["serve", "os:path"], 2),
])
def test_bad_input_gets_a_clear_error_and_exit_code(capsys, argv, code):
    assert main(argv) == code
    captured = capsys.readouterr()
    assert captured.err or '"error"' in captured.out


def test_console_script_runs_in_a_fresh_interpreter():
    done = subprocess.run([sys.executable, "-m", "agentworld", "envs"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and "notion" in done.stdout

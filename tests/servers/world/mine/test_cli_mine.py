"""``agentworld world mine`` and ``world mine-stats`` end to end on a fixture cache."""

from __future__ import annotations

import json

import pytest

from agentworld.cli import main
from agentworld.servers.world.mine.facts import load_snapshot

from .test_miner import build_cache


def test_mine_what_the_cache_holds_and_pin_it(tmp_path, capsys):
    cache = build_cache(tmp_path)
    snapshot = tmp_path / "snapshot.jsonl.gz"
    argv = ["world", "mine", "--cache-dir", str(cache.root), "--snapshot", str(snapshot), "--quiet"]
    assert main(argv) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["candidates"] == 5 and stats["selected"] == 2
    assert {r.name for r in load_snapshot(snapshot)} >= {"shop-crm-mcp", "kennel-mcp"}
    assert main(["world", "mine-stats", "--snapshot", str(snapshot), "--markdown"]) == 0
    assert "| selected | 2 |" in capsys.readouterr().out


def test_named_packages_already_cached_are_not_downloaded_again(tmp_path, capsys):
    cache = build_cache(tmp_path)
    before = cache.ledger_path.read_text()
    argv = ["world", "mine", "kennel-mcp", "shop-crm-mcp", "--cache-dir", str(cache.root),
            "--workers", "2", "--quiet"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["candidates"] == 2
    assert cache.ledger_path.read_text() == before


def test_a_listing_picks_the_candidates(tmp_path, capsys):
    cache = build_cache(tmp_path)
    listing = tmp_path / "pypi.tsv"
    listing.write_text("name\tversion\tmonth\tsummary\nkennel-mcp\t1.0.0\t2026-01\tKennel\n"
                       "requests\t2\t2026-01\tHTTP\n")
    argv = ["world", "mine", "--listing", str(listing), "--cache-dir", str(cache.root), "--quiet"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["candidates"] == 1


@pytest.mark.parametrize("argv, message", [
    (["world", "mine", "--workers", "0"], "at least 1"),
    (["world", "mine", "--listing", "/nonexistent/pypi.tsv"], "No such file"),
    (["world", "mine", "x-mcp", "--stop-at", "noon"], "HH:MM"),
    (["world", "mine-stats", "--snapshot", "/nonexistent/s.jsonl.gz"], "No such file"),
])
def test_bad_input_is_a_clear_error(tmp_path, argv, message):
    with pytest.raises(SystemExit, match=message):
        main(argv + (["--cache-dir", str(tmp_path)] if argv[1] == "mine" else []))


def test_mine_stats_reads_the_shipped_snapshot(capsys):
    assert main(["world", "mine-stats"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["selected"] > 0 and len(stats["by_category"]) == 50


def test_mine_stats_lists_the_selected_servers(capsys):
    assert main(["world", "mine-stats", "--list", "--category", "Software Development"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("name\tversion\tl2") and len(lines) > 1
    assert all(line.split("\t")[2] in {"Code Hosting & Version Control",
                                        "Issue Tracking & Project Management",
                                        "CI/CD & Release Management"} for line in lines[1:])

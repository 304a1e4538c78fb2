"""Candidates come from a listing file, in a stable sample order."""

from __future__ import annotations

import pytest

from agentworld.servers.world.mine.errors import ListingError
from agentworld.servers.world.mine.listing import read_candidates, sample_order

HEADER = "name\tversion\tmonth\trank_among_15000_most_downloaded\tsummary\n"


def _listing(tmp_path, rows: list[str]):
    path = tmp_path / "pypi.tsv"
    path.write_text(HEADER + "".join(r + "\n" for r in rows))
    return path


def test_names_with_the_substring_and_recent_enough(tmp_path):
    path = _listing(tmp_path, ["alpha-mcp\t1.0\t2026-01\t\tAn alpha server",
                               "Beta-MCP-Server\t0.2\t2025-07\t\tBeta",
                               "old-mcp\t0.1\t2024-03\t\tOld",
                               "requests\t2.0\t2026-01\t\tmcp in the summary only"])
    names = {c.name for c in read_candidates(path, since="2025-06")}
    assert names == {"alpha-mcp", "Beta-MCP-Server"}


def test_order_is_the_hash_order_and_a_limit_is_a_prefix(tmp_path):
    rows = [f"s{i}-mcp\t1.0\t2026-01\t\tx" for i in range(40)]
    path = _listing(tmp_path, rows)
    everything = read_candidates(path)
    assert [c.name for c in everything] == sorted((c.name for c in everything), key=sample_order)
    assert read_candidates(path, limit=7) == everything[:7]
    reversed_path = _listing(tmp_path / "..", list(reversed(rows)))
    assert read_candidates(reversed_path) == everything     # independent of the file's order


def test_a_missing_file_or_column_is_a_clear_error(tmp_path):
    with pytest.raises(ListingError, match="No such file"):
        read_candidates(tmp_path / "absent.tsv")
    bad = tmp_path / "bad.tsv"
    bad.write_text("name\tversion\nx-mcp\t1\n")
    with pytest.raises(ListingError, match="missing columns: month, summary"):
        read_candidates(bad)

"""From a cache of real archives to records, copies, fit, categories and the numbers."""

from __future__ import annotations

import json

import pytest

from agentworld.servers.world.mine.cache import DownloadCache
from agentworld.servers.world.mine.errors import DownloadError
from agentworld.servers.world.mine.miner import derive, mine_entries
from agentworld.servers.world.mine.stats import mine_stats, stats_markdown

from ._packages import write_sdist, write_wheel, zip_with

CRM = '''
from mcp.server.fastmcp import FastMCP
mcp = FastMCP("crm")
@mcp.tool()
def list_customers(): ...
@mcp.tool()
def get_customer(customer_id: str): ...
@mcp.tool()
def create_customer(name: str, email: str): ...
@mcp.tool()
def update_customer(customer_id: str, email: str): ...
@mcp.tool()
def list_orders(customer_id: str): ...
@mcp.tool()
def cancel_order(order_id: str): ...
'''


def build_cache(tmp_path) -> DownloadCache:
    """Five packages: a server, its republished copy, an sdist, a hostile zip, a failure."""
    made = tmp_path / "made"
    made.mkdir()
    cache = DownloadCache(tmp_path / "cache")
    cache.adopt("shop-crm-mcp", write_wheel(made, "shop-crm-mcp", files={"server.py": CRM},
                                            summary="A CRM for a shop: customers and orders"))
    copy_dir = made / "copy"
    copy_dir.mkdir()
    cache.adopt("mseep-shop-crm-mcp", write_wheel(copy_dir, "mseep-shop-crm-mcp",
                                                  files={"server.py": CRM}))
    cache.adopt("kennel-mcp", write_sdist(made, "kennel-mcp"))
    cache.adopt("climb-mcp", zip_with(made / "climb_mcp-1.0-py3-none-any.whl",
                                      [("../../x.py", b"x = 1", 0)]))
    with cache.ledger_path.open("a") as ledger:     # the ledger's documented line format
        ledger.write(json.dumps({"name": "absent-mcp", "status": "failed", "reason": "404"}) + "\n")
    return cache


def test_records_copies_fit_and_categories(tmp_path):
    cache = build_cache(tmp_path)
    records = {r.name: r for r in derive(mine_entries(cache.entries().values(), cache.files))}
    crm = records["shop-crm-mcp"]
    assert crm.status == "mined" and crm.version == "1.0.0" and crm.licence == "MIT"
    assert crm.selected and crm.l2 == "Commerce & Customer Support"
    assert {"customer", "crm"} <= set(crm.summary_terms)
    assert records["mseep-shop-crm-mcp"].duplicate_of == "shop-crm-mcp"
    assert not records["mseep-shop-crm-mcp"].selected
    assert records["kennel-mcp"].kind == "sdist" and len(records["kennel-mcp"].tools) == 5
    climb = records["climb-mcp"]
    assert climb.status == "rejected" and climb.reason == "unsafe-path"
    assert records["absent-mcp"].status == "failed"


def test_the_numbers(tmp_path):
    cache = build_cache(tmp_path)
    records = derive(mine_entries(cache.entries().values(), cache.files, workers=2))
    stats = mine_stats(records)
    assert stats["candidates"] == 5 and stats["failed"] == 1 and stats["downloaded"] == 4
    assert stats["rejected"] == {"unsafe-path": 1}
    assert stats["with_tools"] == 3 and stats["distinct_surfaces"] == 2
    assert stats["copies"] == 1
    assert stats["tools"] == 6 + 6 + 5 and stats["with_5_tools"] == 3
    assert stats["selected"] == 2            # the CRM and the kennel; the copy is not
    assert stats["by_category"]["Commerce & Customer Support"]["selected"] == 1
    assert "| copies | 1 |" in stats_markdown(stats)


def test_adopting_a_missing_archive_is_an_error(tmp_path):
    with pytest.raises(DownloadError, match="no such archive"):
        DownloadCache(tmp_path).adopt("x-mcp", tmp_path / "absent.whl")


def test_a_memo_reads_each_archive_once(tmp_path):
    cache = build_cache(tmp_path)
    memo = tmp_path / "mined.jsonl"
    first = mine_entries(cache.entries().values(), cache.files, memo=memo)
    assert len(memo.read_text().splitlines()) == 4          # the failure is not memoised
    kennel = next(e for e in cache.entries().values() if e.name == "kennel-mcp")
    (cache.files / kennel.file).write_bytes(b"no longer an archive")
    again = mine_entries(cache.entries().values(), cache.files, memo=memo)
    assert again == first                                   # read from the memo, not the file
    assert mine_entries([kennel], cache.files)[0].status == "rejected"

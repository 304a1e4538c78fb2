"""The taxonomy classifier: deterministic, fed by data, with a fallback for no cue at all."""

from __future__ import annotations

from agentworld.servers.world.mine.taxonomy import (
    FALLBACK_L2,
    classify,
    keywords,
    profiles,
    summary_terms,
)
from agentworld.servers.world.taxonomy import TAXONOMY


def test_keywords_and_profiles_cover_the_fifty_categories():
    assert list(keywords()) == [c.l2 for c in TAXONOMY]
    assert list(profiles()) == [c.l2 for c in TAXONOMY]
    assert all(keywords()[c.l2] for c in TAXONOMY)


def test_name_summary_and_tools_each_carry_evidence():
    assert classify("jira-helper-mcp", []).l2 == "Issue Tracking & Project Management"
    assert classify("acme-mcp", [], ["invoice", "ledger"]).l2 == "Accounting & Invoicing"
    tools = ["list_flights", "get_flight", "book_flight", "cancel_booking", "get_airport"]
    assert classify("acme-mcp", tools).l2 == "Air Travel"


def test_domain_pack_words_count_without_a_keyword():
    # "apartment", "turnover" and "cabin" are no keywords of Lodging; its domain pack uses them
    assert not {"apartment", "turnover", "cabin"} & keywords()["Lodging"]
    got = classify("acme-mcp", ["list_apartments", "get_cabin", "schedule_turnover"])
    assert got.l2 == "Lodging" and got.l1 == "Travel & Transportation"


def test_no_cue_falls_back_and_the_answer_is_stable():
    got = classify("zzq-mcp", ["frob", "twiddle"])
    assert got.l2 == FALLBACK_L2 and got.score == 0
    tools = ["list_issues", "create_issue", "get_repository", "merge_pull_request"]
    assert len({classify("x-mcp", tools) for _ in range(3)}) == 1


def test_summary_terms_keep_only_the_projects_vocabulary():
    terms = summary_terms("A lovely MCP server to manage Shopify orders, with zxqv glitter!")
    assert {"shopify", "order"} <= set(terms)
    assert "zxqv" not in terms and "lovely" not in terms and "mcp" not in terms

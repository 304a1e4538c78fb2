"""Answers are read as typed values: equivalent phrasings pass, hedges and neighbours fail."""

import sqlite3

import pytest

from agentworld.servers.taskgen.answers import answer_matches, candidates, render_answer

NUMBER = {"type": "number", "value": 1234}
MONEY = {"type": "money", "value": 1234.5, "currency": "EUR"}
DATE = {"type": "date", "value": "2026-03-05"}


@pytest.mark.parametrize("reply", ["1234", "1,234", "The answer is 1234.", "1234.0 items",
                                   "There are 1,234 in total"])
def test_a_number_in_any_common_format_passes(reply):
    assert answer_matches(NUMBER, reply)


@pytest.mark.parametrize("reply", ["1233", "Could be 1233, 1234 or 1235.", "1234 or 1235",
                                   "INV-1234", "usr_1234", "", None])
def test_neighbours_hedges_and_numbers_inside_ids_fail(reply):
    assert not answer_matches(NUMBER, reply)


def test_numbers_the_prompt_mentions_are_not_rivals():
    spec = {**NUMBER, "ignore": ["30"]}
    assert answer_matches(spec, "Of the invoices older than 30 days, 1,234 are open.")
    assert not answer_matches(NUMBER, "Of the invoices older than 30 days, 1,234 are open.")


@pytest.mark.parametrize("reply", ["1,234.50 EUR", "EUR 1234.5", "€1,234.50",
                                   "The total comes to 1234.50 EUR."])
def test_money_with_currency_and_separators_passes(reply):
    assert answer_matches(MONEY, reply)


def test_money_off_by_a_unit_fails():
    assert not answer_matches(MONEY, "1,235.50 EUR")
    assert not answer_matches(MONEY, "1234.50 or 1235.50")


@pytest.mark.parametrize("style", range(5))
def test_every_rendering_of_every_type_passes(style):
    for spec in (NUMBER, MONEY, DATE, {"type": "id", "value": "inv_000012"},
                 {"type": "text", "value": "Jane Doe"}, {"type": "list", "value": ["A1", "B2"]}):
        assert answer_matches(spec, render_answer(spec, style)), (spec, style)


@pytest.mark.parametrize("reply", ["2026-03-05", "March 5, 2026", "5 March 2026",
                                   "Mar 5th, 2026", "03/05/2026", "on 2026-03-05T10:00:00Z"])
def test_dates_in_written_and_iso_forms_pass(reply):
    assert answer_matches(DATE, reply)


def test_a_date_is_not_read_as_numbers_and_a_day_off_fails():
    assert candidates(NUMBER, "due 2026-03-05, 1234 left") == [1234]
    assert not answer_matches(DATE, "2026-03-06")
    assert not answer_matches(DATE, "2026-03-05 or 2026-03-06")


@pytest.fixture
def people():
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE people (id TEXT PRIMARY KEY, name TEXT)")
    db.executemany("INSERT INTO people VALUES (?, ?)",
                   [("p1", "Ana Silva"), ("p2", "Ana Silva Costa"), ("p3", "Rui Alves")])
    return db


def test_a_name_must_be_the_only_candidate_of_its_domain(people):
    spec = {"type": "text", "value": "Ana Silva", "domain": {"table": "people", "column": "name"}}
    assert answer_matches(spec, "It was ana silva.", db=people)
    assert not answer_matches(spec, "Ana Silva or Rui Alves", db=people)
    # the longer name is a different person, not a mention of the shorter one
    assert not answer_matches(spec, "Ana Silva Costa", db=people)


def test_states_are_whole_words():
    spec = {"type": "text", "value": "cancelled", "alternatives": ["confirmed", "cancelled"]}
    assert answer_matches(spec, "It is cancelled.")
    assert not answer_matches(spec, "It is confirmed, not cancelled.")
    assert not answer_matches({**spec, "value": "confirmed"}, "It is unconfirmed.")


def test_lists_compare_as_sets_and_extra_items_fail(people):
    spec = {"type": "list", "value": ["Ana Silva", "Rui Alves"],
            "domain": {"table": "people", "column": "name"}}
    assert answer_matches(spec, "Rui Alves and Ana Silva", db=people)
    assert not answer_matches(spec, "Rui Alves", db=people)
    assert not answer_matches(spec, "Rui Alves, Ana Silva, Ana Silva Costa", db=people)
    numbers = {"type": "list", "value": [12, 15]}
    assert answer_matches(numbers, "#15 and #12")
    assert not answer_matches(numbers, "12, 15, 16")


def test_ids_match_exactly_and_rival_ids_fail():
    spec = {"type": "id", "value": "inv_000012"}
    assert answer_matches(spec, "The invoice is INV_000012.")
    assert not answer_matches(spec, "inv_000012 or inv_000013")
    assert not answer_matches(spec, "inv_000013")

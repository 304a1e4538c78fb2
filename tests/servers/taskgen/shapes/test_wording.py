"""The small pieces the shapes are written with: verbs, field names, round thresholds, and the
check that a prompt does not give its answer away."""

from __future__ import annotations

import pytest

from agentworld.servers.taskgen.shapes import Draft
from agentworld.servers.taskgen.shapes._common import act, and_list, field_words, leaks
from agentworld.servers.taskgen.shapes.decisions import forks, nice_between
from agentworld.servers.world.spec import Entity, Field, Lifecycle, Transition


def _t(verb: str, target: str = "done") -> Transition:
    return Transition(verb, ("open",), target, "")


@pytest.mark.parametrize(("verb", "target", "said"), [
    ("approve", "approved", "approve the invoice"),
    ("mark_paid", "paid", "mark the invoice as paid"),
    ("send_to_review", "in_review", "send the invoice to review"),
    ("check_in", "checked_in", "check the invoice in"),
    ("open_voting", "voting", "open voting for the invoice"),
    ("go_live", "live", "set the invoice to live"),
    ("take_out_of_service", "out_of_service", "take the invoice out of service"),
    ("report_lost", "reported_lost", "report the invoice lost"),
    ("make_effective", "effective", "make the invoice effective"),
])
def test_a_move_reads_as_a_request(verb, target, said):
    assert act(_t(verb, target), "the invoice") == said


@pytest.mark.parametrize(("name", "kind", "said"), [
    ("starts_on", "date", "start date"), ("due_on", "date", "due date"),
    ("decision_date", "date", "decision date"), ("is_gate", "bool", "gate"),
    ("approval_limit", "money", "approval limit"),
])
def test_field_names_read_as_words(name, kind, said):
    assert field_words(Field(name, kind)) == said


def test_round_thresholds_fall_strictly_between():
    assert nice_between(1234, 5678) == 2000
    assert nice_between(97, 103) == 100
    assert nice_between(10, 11) is None
    for low, high in [(3, 9), (1499, 1501), (0, 2)]:
        value = nice_between(low, high)
        assert value is not None and low < value < high


def test_and_list():
    assert and_list(["a"]) == "a"
    assert and_list(["a", "b", "c"]) == "a, b and c"


def test_a_fork_pairs_a_hold_back_move_with_one_that_lets_through():
    entity = Entity("claim", "claims", "title", (Field("title", "text"),), lifecycle=Lifecycle(
        ("open", "approved", "rejected", "paid"), "open",
        (Transition("approve", ("open",), "approved", ""),
         Transition("reject", ("open",), "rejected", ""),
         Transition("pay", ("approved",), "paid", ""))))
    assert [(s, a.verb, b.verb) for s, a, b in forks(entity)] == [("open", "reject", "approve")]


@pytest.mark.parametrize(("prompt", "value", "leaked"), [
    ("How many orders does shop 12 have?", 12, True),
    ("How many orders does shop 12 have?", 1, False),
    ("Order total over 1,200 EUR?", 1200, True),
    ("Order total over 1,200.50 EUR?", 1200, False),
    ("Was it Ana Lima or Rui Costa?", "Ana Lima", True),
    ("The invoice inv_000012 is late.", 12, False),
])
def test_leaks_finds_the_answer_as_a_whole_value(prompt, value, leaked):
    draft = Draft("x", prompt, [], {"type": "number", "value": value})
    assert leaks(draft) is leaked

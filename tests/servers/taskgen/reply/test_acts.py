"""Reading the acts a reply claims: verbs known and unknown, what they act on, their counts."""

import pytest

from agentworld.servers.taskgen.reply.acts import actions


def _read(text):
    return [(a.verb, a.objects, a.count) for a in actions(text)]


def test_claimed_acts_with_their_counts_and_objects():
    assert _read("I also emailed all 14 invitees.") == [("emailed", ("invitees",), 14)]
    assert _read("Cancelled 2 reservations and emailed Ana.") == [
        ("cancelled", ("reservations",), 2), ("emailed", ("ana",), None)]
    assert _read("Checked off 14 to-dos and left a comment on each page.") == [
        ("checked off", ("to-dos",), 14), ("left", ("comment", "page"), None)]
    assert _read("Done: created the collection and added the recipe to your shopping list.") \
        == [("created", ("collection",), None), ("added", ("recipe", "shopping list"), None)]


def test_unknown_past_tenses_that_change_things_are_acts():
    assert [a.verb for a in actions("Done, and I saved and recompiled the asset.")] == [
        "saved", "recompiled"]
    (act,) = actions("Created the strategy, then deployed it to paper trading.")[1:]
    assert act.stems == ("deploy", "release", "publish", "rollout")
    (act,) = actions("I also defragmented the disk.")
    assert act.stems == ("defragment",)


@pytest.mark.parametrize("text", [
    "The booking is confirmed.", "I did not email anyone.", "I can email them if you like.",
    "Should I cancel it?", "The flight was cancelled by the airline.", "It was already merged.",
    "I left #223 open.", "I checked the seat map and found row 30 empty.",
    "I looked at every page and verified the dates.",
])
def test_states_negations_plans_questions_and_reads_claim_no_act(text):
    assert actions(text) == [], text


def test_each_part_of_a_sentence_is_read_on_its_own():
    text = "Deleted the backup and also removed its schedule so it will not come back."
    assert [(a.verb, a.objects) for a in actions(text)] == [
        ("deleted", ("backup",)), ("removed", ("schedule",))]

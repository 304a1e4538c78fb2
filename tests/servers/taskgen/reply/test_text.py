"""Reading a reply: clauses and labelled context, hedges, weekdays."""

from agentworld.servers.taskgen.reply.text import (
    answer_text,
    clauses,
    hedges,
    weekday_mismatches,
)


def test_labelled_context_is_set_apart_from_the_answer():
    reply = ("Cheapest: 2026-03-09 on MW101 for $463; next cheapest: 2026-03-10 for $480. "
             "I merged #241 and #228; the other three stay open (for reference: #212 is red).")
    context = [c.text for c in clauses(reply) if c.context]
    assert context == ["next cheapest: 2026-03-10 for $480.", "for reference: #212 is red",
                       "the other three stay open."]
    text = answer_text(reply)
    assert "$463" in text and "$480" not in text and "three" not in text and "#212" not in text


def test_hedges():
    for hedged in ("about 7", "around $463", "Probably X, but I am not sure", "~12",
                   "I think it is Ada", "It looks like 3", "7 or so", "at least 4"):
        assert hedges(hedged), hedged
    for plain in ("7", "It is $463.", "There are 7 in total.", "an unlikely event: 3"):
        assert not hedges(plain), plain


def test_weekdays_must_be_their_dates():
    assert weekday_mismatches("Tuesday, 2026-03-09") == ["Tuesday, 2026-03-09"]
    assert weekday_mismatches("March 9, 2026 (Tue)") == ["March 9, 2026 (Tue"]
    assert weekday_mismatches("Monday, 2026-03-09 and Tuesday, March 10, 2026") == []
    assert weekday_mismatches("On Friday I looked; the date is 2026-03-09.") == []

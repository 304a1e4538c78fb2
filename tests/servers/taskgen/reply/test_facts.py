"""The claim reader against a real state: the GitHub reference environment after real calls."""

import pytest

from agentworld.servers import Session, default_catalog
from agentworld.servers.taskgen.reply.facts import read_reply
from agentworld.servers.tasks import Step

PROMPT = "Acting as hiroshi-shah: close issues #155 and #157 of harborline/web-app."


@pytest.fixture(scope="module")
def closed_two():
    """The state after hiroshi-shah closed issues 155 and 157 of harborline/web-app."""
    env = default_catalog().load("github")
    session = Session(env, seed=0)
    steps = []
    for number in (155, 157):
        args = {"actor": "hiroshi-shah", "repo": "harborline/web-app", "number": number,
                "state": "closed"}
        result = session.call("update_issue", args)
        assert result.ok, result.payload()
        steps.append(Step("update_issue", args, True, result.payload()))
    initial = env.template.clone()
    yield initial, session.db, steps
    initial.close()
    session.close()


def _read(state, reply, prompt=PROMPT):
    initial, final, steps = state
    return read_reply(reply, initial=initial, final=final, trajectory=steps, prompt=prompt,
                      skip_columns=("*.updated_at",))


@pytest.mark.parametrize("reply", [
    "Closed #155 and #157.",
    "I closed 2 issues: #155 and #157.",
    "Done. Both issues are closed now; #167 is still open.",
    "I closed the issue \"Improve search bar performance for large accounts\".",
    "You are an admin on harborline/web-app, so I closed them.",
    "I did not email anyone; I can notify the reporters if you like.",
])
def test_true_replies_pass(closed_two, reply):
    reading = _read(closed_two, reply)
    assert reading.ok, reading.contradictions


@pytest.mark.parametrize("reply, kind", [
    ("Closed #155 and #9157.", "unknown_code"),
    ("I closed 3 issues.", "wrong_count"),
    ("Closed both, and I also emailed the 2 reporters.", "no_such_action"),
    ("Closed them. Improve checkout page performance for large accounts is closed too.",
     "wrong_state"),
    ("I posted \"Closing: fixed in the last release\" on both.", "quote"),
])
def test_false_replies_are_caught(closed_two, reply, kind):
    reading = _read(closed_two, reply)
    assert kind in {f.kind for f in reading.contradictions}, reading.contradictions


def test_you_is_the_acting_user(closed_two):
    prompt = "Acting as lina-muller: tell me what you can do on harborline/web-app."
    assert not _read(closed_two, "You are an admin there.", prompt).ok     # she can write
    assert _read(closed_two, "You have write access there.", prompt).ok


def test_what_the_reader_cannot_place_is_undecided(closed_two):
    reading = _read(closed_two, "Closed both. That took about 4 minutes.")
    assert reading.ok and reading.undecided == ["That took about 4 minutes."]


def test_amounts_and_dates_must_be_shown_somewhere(closed_two):
    assert _read(closed_two, "Closed both on 2026-03-02.").ok            # the episode's day
    reading = _read(closed_two, "Closed both; the refund of $480 is on its way.")
    assert "unknown_amount" in {f.kind for f in reading.contradictions}
    reading = _read(closed_two, "Closed both; the milestone is due 2031-07-04.")
    assert "unknown_date" in {f.kind for f in reading.contradictions}
    assert _read(closed_two, "Closed both; $480 in total across them.").ok   # a sum it made

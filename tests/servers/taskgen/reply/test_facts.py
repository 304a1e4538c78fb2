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


def test_the_acting_users_role_is_read_where_the_sentence_places_it(closed_two):
    prompt = "Acting as ravi-rossi: in harborline/cli, label the broken issues."
    reading = _read(closed_two, "Note: ravi-rossi only has triage access on harborline/cli.",
                    prompt)
    assert [f.kind for f in reading.contradictions] == ["wrong_state"]   # admin there
    assert _read(closed_two, "ravi-rossi is an admin on harborline/cli.", prompt).ok


def test_each_state_word_belongs_to_the_record_before_it(closed_two):
    assert _read(closed_two, "Improve search bar performance for large accounts is closed now, "
                             "Checkout page times out when switching locales is closed too.").ok
    reading = _read(closed_two, "Improve search bar performance for large accounts is closed, "
                                "and Improve checkout page performance for large accounts "
                                "(still open) is next.")
    assert reading.ok                     # #167 is still open
    reading = _read(closed_two, "Checkout page times out when switching locales is still open.")
    assert [f.kind for f in reading.contradictions] == ["wrong_state"]   # closed now


def test_acts_on_things_the_episode_never_touched_are_false(closed_two):
    for reply in ("Closed both and left a comment on each issue.",
                  "Closed both, then merged the pull request."):
        kinds = {f.kind for f in _read(closed_two, reply).contradictions}
        assert kinds == {"no_such_action"}, reply
    assert _read(closed_two, "Closed both issues and updated their state.").ok


def test_the_record_the_request_named_is_the_one_the_reply_calls_by_its_kind():
    env = default_catalog().load("airline")
    db = env.template.clone()
    try:
        number, day = db.execute("SELECT flight_number, service_date FROM flights WHERE "
                                 "status = 'on_time' ORDER BY id LIMIT 1").fetchone()
        prompt = f"How many seats are left on flight {number} on {day}?"

        def read(reply):
            return read_reply(reply, initial=db, final=db, trajectory=(), prompt=prompt)

        assert read("Note the flight is on time.").ok
        assert not read("Note the flight is currently delayed by about 2 hours.").ok
    finally:
        db.close()


def test_a_grant_between_named_records_is_read_at_its_level():
    env = default_catalog().load("notion")
    session = Session(env, seed=0)
    db = env.template.clone()
    try:
        member, name = db.execute("SELECT id, name FROM members WHERE role = 'guest' "
                                  "ORDER BY id LIMIT 1").fetchone()
        page, title = db.execute("SELECT id, title FROM pages WHERE archived = 0 AND id NOT IN "
                                 "(SELECT page_id FROM page_permissions) ORDER BY id LIMIT 1"
                                 ).fetchone()
        owner = db.execute("SELECT id FROM members WHERE role = 'owner' LIMIT 1").fetchone()[0]
        args = {"actor_id": owner, "page_id": page, "member_id": member, "level": "can_view"}
        result = session.call("share_page", args)
        assert result.ok, result.payload()
        steps = (Step("share_page", args, True, result.payload()),)

        def read(reply):
            return read_reply(reply, initial=db, final=session.db, trajectory=steps,
                              prompt=f"Share {title} with {name} so they can view it.")

        assert read(f"Shared {title} with {name} at the can view level.").ok
        assert not read(f"Shared {title} with {name}, with edit access.").ok
        assert not read(f"Done. {name} is an owner of this workspace.").ok
    finally:
        db.close()
        session.close()


@pytest.mark.parametrize("reply, kind", [
    ("Closed #155 and #157; the other 300 open issues are untouched.", "wrong_count"),
    ("Closed #1557 and #157.", "unknown_code"),                 # a slip of an existing number
    ("Closed issue 99999 and #157.", "unknown_code"),            # no issue has that id
    ("Closed \"Improve checkout page performance for large accounts\" and #157.",
     "wrong_record"),                                            # #167, not acted on
    ("Nothing needed to change: both were already closed.", "no_such_action"),
])
def test_counts_codes_records_and_no_change_claims(closed_two, reply, kind):
    reading = _read(closed_two, reply)
    assert kind in {f.kind for f in reading.contradictions}, reading.contradictions


def test_the_newest_record_is_read_among_those_listed():
    env = default_catalog().load("github")
    session = Session(env, seed=0)
    try:
        args = {"repo": "harborline/web-app", "state": "open", "limit": 5}
        result = session.call("search_issues", args)
        assert result.ok, result.payload()
        steps = (Step("search_issues", args, True, result.payload()),)
        listed = next(v for v in result.data.values() if isinstance(v, list))
        newest = max(listed, key=lambda r: r["created_at"])
        other = next(r for r in listed if r is not newest)
        db = env.template.clone()

        def read(title):
            return read_reply(f"The most recently created is \"{title}\".", initial=db,
                              final=session.db, trajectory=steps, prompt="List open issues.")

        assert read(newest["title"]).ok
        assert not read(other["title"]).ok
        db.close()
    finally:
        session.close()

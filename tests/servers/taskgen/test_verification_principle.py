"""The verification principle (docs/tasks.md) on a real runtime over a real SQLite calendar:
stated values are checked by their type, generated ones are free, unrequested columns keep
their defaults, and the reply is read."""

import pytest

from agentworld.servers import Environment
from agentworld.servers.taskgen.assemble import TaskRejected, assemble
from agentworld.servers.taskgen.audit import audit_task, play
from tests.fixtures.calendar_env import DEFINITION


@pytest.fixture(scope="module")
def calendar():
    return Environment(DEFINITION)


def _book(env, **extra):
    args = {"calendar_id": "cal_team", "title": "Offsite lunch",
            "starts_at": "2026-03-09T13:45:00Z", "colour": "#9467bd", **extra}
    prompt = ('Add "Offsite lunch" to the Team calendar (cal_team) on 2026-03-09 at 13:45 UTC, '
              'colour #9467bd.')
    return assemble(env, id="cal/book", kind="programmatic", prompt=prompt,
                    calls=[["create_event", args]])


def _play(env, record, calls, answer=None):
    return play(env, record, calls, answer).verdict


def _create(**changes):
    args = {"calendar_id": "cal_team", "title": "Offsite lunch",
            "starts_at": "2026-03-09T13:45:00Z", "colour": "#9467bd", **changes}
    return [["create_event", args]]


def test_a_dictated_time_is_checked_as_an_instant(calendar):
    record = _book(calendar)
    assert _play(calendar, record, _create()).passed
    # The same moment written another way is the same value.
    assert _play(calendar, record, _create(starts_at="2026-03-09T14:45:00+01:00")).passed
    for wrong in ("2026-03-09T01:45:00Z", "2025-03-09T13:45:00Z", "2026-03-09T13:46:00Z"):
        assert not _play(calendar, record, _create(starts_at=wrong)).passed, wrong


def test_case_is_ignored_only_where_the_domain_ignores_it(calendar):
    record = _book(calendar)
    assert _play(calendar, record, _create(colour="#9467BD")).passed
    assert not _play(calendar, record, _create(title="offsite lunch")).passed


def test_an_unrequested_column_must_keep_its_default(calendar):
    record = _book(calendar)
    assert not _play(calendar, record, _create(visibility="private")).passed
    assert not _play(calendar, record, _create(reminder_minutes=30)).passed


def test_values_the_service_makes_up_are_free(calendar):
    """Two independent creates in the other order get other sequence numbers and codes: both
    orders solve the request."""
    calls = _create() + [["create_event", {"calendar_id": "cal_team", "title": "Retro",
                                           "starts_at": "2026-03-10T09:00:00Z"}]]
    prompt = ('Add "Offsite lunch" to the Team calendar (cal_team) on 2026-03-09 at 13:45 UTC, '
              'colour #9467bd, and "Retro" on 2026-03-10 at 09:00 UTC.')
    record = assemble(calendar, id="cal/two", kind="programmatic", prompt=prompt, calls=calls)
    assert "number" not in str([c.get("values") for c in record.checks])
    assert _play(calendar, record, calls[::-1]).passed
    assert not _play(calendar, record, calls[:1]).passed


def test_the_reply_to_a_write_task_is_read(calendar):
    record = _book(calendar)
    reference = play(calendar, record, _create(), None)
    code = reference.steps[0].output["event"]["code"]
    assert _play(calendar, record, _create(), f"Done: the event code is {code}.").passed
    assert _play(calendar, record, _create(), "Booked it for Monday, 2026-03-09.").passed
    false = [f"Done: the event code is {code[:-2] + code[-1] + code[-2]}.",   # a slip
             "Booked it for Tuesday, 2026-03-09.",                              # wrong weekday
             "Done, and I also emailed all 14 attendees.",                      # nothing sent
             "Done. By the way, Dentist is confirmed."]                         # it is cancelled
    for reply in false:
        verdict = _play(calendar, record, _create(), reply)
        assert not verdict.passed, reply
        assert verdict.notes["contradictions"], reply


def test_answers_refuse_hedges_and_keep_labelled_context(calendar):
    prompt = "When does the Design review on the Team calendar (cal_team) start? Give the date."
    record = assemble(calendar, id="cal/when", kind="programmatic", prompt=prompt,
                      calls=[["list_events", {"calendar_id": "cal_team"}]],
                      answer={"type": "date", "value": "2026-03-05"})
    listing = [["list_events", {"calendar_id": "cal_team"}]]
    assert _play(calendar, record, listing, "On Thursday, 2026-03-05.").passed
    assert _play(calendar, record, listing,
                 "2026-03-05. For comparison, Quarterly planning is on 2026-03-04.").passed
    assert _play(calendar, record, [["get_event", {"event_id": "evt_000002"}]],
                 "2026-03-05").passed                     # a lookup does as well as a listing
    for reply in ("Probably 2026-03-05, but I am not sure.", "Friday, 2026-03-05",
                  "2026-03-05 or 2026-03-04"):
        assert not _play(calendar, record, listing, reply).passed, reply
    assert not _play(calendar, record, [], "2026-03-05").passed    # a guess reads nothing


def test_the_prompt_lint_drops_drafts_nobody_could_act_on(calendar):
    listing = [["list_events", {"calendar_id": "cal_team"}]]
    with pytest.raises(TaskRejected, match="without naming"):
        assemble(calendar, id="cal/count", kind="programmatic",
                 prompt="Look at the Team calendar (cal_team). Tell me how many there are in all.",
                 calls=listing, answer={"type": "number", "value": 2})
    with pytest.raises(TaskRejected, match="unspecified"):
        assemble(calendar, id="cal/vague", kind="programmatic", prompt="Add an event for me.",
                 calls=_create())
    with pytest.raises(TaskRejected, match="ends before it starts"):
        assemble(calendar, id="cal/range", kind="programmatic",
                 prompt='Add "Offsite lunch" to the Team calendar (cal_team) at '
                        "2026-03-09T13:45:00Z, colour #9467bd, for the week from 2026-03-09 "
                        "to 2026-03-02.", calls=_create())


def test_the_audit_runs_every_realistic_kind_and_finds_nothing_wrong(calendar):
    calls = _create() + [["create_event", {"calendar_id": "cal_team", "title": "Retro",
                                           "starts_at": "2026-03-10T09:00:00Z"}],
                         ["create_event", {"calendar_id": "cal_team", "title": "Demo",
                                           "starts_at": "2026-03-11T16:00:00Z"}]]
    prompt = ('Add three events to the Team calendar (cal_team): "Offsite lunch" on 2026-03-09 '
              'at 13:45 UTC, colour #9467bd; "Retro" on 2026-03-10 at 09:00 UTC; and "Demo" on '
              "2026-03-11 at 16:00 UTC.")
    record = assemble(calendar, id="cal/three", kind="programmatic", prompt=prompt, calls=calls)
    audit = audit_task(calendar, record)
    assert audit.ok, audit.to_dict()
    kinds = {r.kind for r in audit.results}
    assert {"dictated_changed", "unrequested_column", "false_claim", "half_job",
            "independent_reordered", "case_variant"} <= kinds


def test_a_row_that_was_there_before_is_not_a_created_row(calendar):
    from agentworld.servers.taskgen.checks import evaluate
    from agentworld.servers.tasks import VerifierInput

    check = {"kind": "row_added", "table": "events", "values": {"title": "Design review"}}
    initial, final = calendar.template.clone(), calendar.template.clone()
    try:
        assert not evaluate(check, VerifierInput(initial, final, None, ()))
    finally:
        initial.close()
        final.close()

"""The verifier audit: it passes exact rubrics and finds the holes in weak ones."""

import pytest

from agentworld.servers import default_catalog
from agentworld.servers.taskgen.assemble import TaskRejected, assemble
from agentworld.servers.taskgen.audit import audit_task, play, summarize
from agentworld.servers.taskgen.reference import REFERENCE_TASKS
from agentworld.servers.taskgen.specified import unspecified_steps


def _ids(env, table, where="1 = 1", n=3):
    db = env.template.clone()
    try:
        return [r[0] for r in db.execute(f"SELECT id FROM {table} WHERE {where} ORDER BY id "
                                         f"LIMIT {n}")]
    finally:
        db.close()


def _cancel_two(hotel):
    env, _ = hotel
    first, second = _ids(env, "reservations", "status = 'confirmed'", 2)
    calls = [["get_reservation", {"id": first}], ["cancel_reservation", {"id": first}],
             ["cancel_reservation", {"id": second}]]
    prompt = f"Please cancel reservations {first} and {second}; the guests called it off."
    return env, assemble(env, id="t/cancel", kind="programmatic", prompt=prompt, calls=calls)


def test_an_exact_rubric_passes_every_variant(hotel):
    env, record = _cancel_two(hotel)
    audit = audit_task(env, record)
    assert audit.reference_passed and audit.ok, audit.to_dict()
    kinds = {r.kind for r in audit.results}
    assert {"reordered", "extra_reads", "refused_first", "target_missed", "wrong_entity",
            "collateral_write"} <= kinds


def test_the_audit_finds_a_missing_guard_and_an_unspecified_step(hotel):
    env, record = _cancel_two(hotel)
    weak = type(record)(**{**record.to_dict(), "checks": [
        c for c in record.checks if c["kind"] != "unchanged_elsewhere"]})
    audit = audit_task(env, weak)
    assert {r.kind for r in audit.false_positives} >= {"collateral_write"}
    report = summarize([audit])
    assert report["per_kind"]["collateral_write"]["wrong_tasks"] == [weak.id]
    assert report["false_positive_tasks"][weak.id]
    vague = type(record)(**{**record.to_dict(), "prompt": "Cancel the two reservations."})
    assert unspecified_steps(env, vague, ()) and not audit_task(env, vague).ok


def test_created_rows_match_by_content_after_a_refused_create(hotel):
    env, _ = hotel
    room = _ids(env, "rooms", n=1)[0]
    guest = _ids(env, "guests", n=1)[0]
    args = {"room_id": room, "guest_id": guest, "check_in": "2027-05-03",
            "check_out": "2027-05-06", "guests_count": 1}
    missing = {**args, "room_id": "roo_missing00"}
    prompt = (f"Book room {room} for guest {guest} from 2027-05-03 to 2027-05-06, "
              "1 guest.")
    record = assemble(env, id="t/book", kind="programmatic", prompt=prompt,
                      calls=[["create_reservation", args]])
    assert "res_" not in str([c for c in record.checks if c["kind"] != "unchanged_elsewhere"])
    shifted = play(env, record, [["create_reservation", missing], ["create_reservation", args]],
                   None)
    assert shifted.refused == 1 and shifted.verdict.passed


def test_a_prompt_that_contains_its_answer_is_refused(hotel):
    env, _ = hotel
    first = _ids(env, "reservations", n=1)[0]
    with pytest.raises(TaskRejected):
        assemble(env, id="t/leak", kind="programmatic",
                 prompt=f"Reservation {first} has 1 guest; how many guests does it have?",
                 calls=[["get_reservation", {"id": first}]],
                 answer={"type": "number", "value": 1})


@pytest.mark.parametrize("env_id", ["airline", "github", "notion"])
def test_reference_tasks_pass_the_audit_in_a_fast_sample(env_id):
    env = default_catalog().load(env_id)
    records = REFERENCE_TASKS[env_id]()
    sample = records[::5]
    report = summarize([audit_task(env, r) for r in sample])
    assert report["tasks_ok"] == len(sample), report


@pytest.mark.slow
@pytest.mark.parametrize("env_id", ["airline", "github", "notion"])
def test_every_reference_task_passes_the_audit(env_id):
    env = default_catalog().load(env_id)
    report = summarize([audit_task(env, r) for r in REFERENCE_TASKS[env_id]()])
    assert report["tasks_ok"] == report["tasks"], report

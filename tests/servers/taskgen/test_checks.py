from agentworld.servers import Session
from agentworld.servers.taskgen.checks import compile_rubric, evaluate
from agentworld.servers.tasks import VerifierInput

CHECKS = [
    {"kind": "row_values", "table": "reservations", "match": {"id": "res_000002"},
     "expect": {"status": "cancelled"}, "points": 2, "name": "cancelled"},
    {"kind": "answer_includes", "values": [3], "points": 1, "name": "answer"},
    {"kind": "count_changed", "table": "reservations", "expected": 1, "guard": True,
     "name": "nothing else"},
]


def run(env, calls, answer):
    s = Session(env)
    for name, args in calls:
        assert s.call(name, args).ok
    return VerifierInput(env.template.clone(), s.db, answer, ())


def test_noop_scores_zero_and_guards_need_the_goal(hotel):
    env, _ = hotel
    verdict = compile_rubric(CHECKS)(run(env, [], None))
    assert verdict.reward == 0.0 and not verdict.passed


def test_full_solution_scores_one(hotel):
    env, _ = hotel
    verdict = compile_rubric(CHECKS)(run(env, [("cancel_reservation", {"id": "res_000002"})],
                                         "I cancelled 3 in total."))
    assert verdict.reward == 1.0 and verdict.passed


def test_collateral_damage_loses_the_guard(hotel):
    env, _ = hotel
    calls = [("cancel_reservation", {"id": "res_000002"}),
             ("cancel_reservation", {"id": "res_000001"})]
    verdict = compile_rubric(CHECKS)(run(env, calls, "3"))
    assert verdict.components["nothing else"] == 0.0 and not verdict.passed
    assert verdict.score == 0.75 and verdict.reward == 0.0  # a failure earns nothing by default
    assert verdict.with_mode("partial").reward == 0.375


def test_answers_match_numbers_and_text_loosely(hotel):
    env, _ = hotel
    inp = run(env, [], "The total is 1,234.")
    assert evaluate({"kind": "answer_includes", "values": [1234]}, inp)
    assert not evaluate({"kind": "answer_includes", "values": [123]}, inp)
    inp = run(env, [], "Status:   CONFIRMED")
    assert evaluate({"kind": "answer_includes", "values": ["confirmed"]}, inp)


def test_rows_added_must_be_new(hotel):
    env, _ = hotel
    check = {"kind": "row_added", "table": "guests", "values": {"full_name": "Ana Costa"}}
    assert not evaluate(check, run(env, [], None))
    added = run(env, [("create_guest", {"full_name": "Ana Costa", "email": "ana@x.pt",
                                        "loyalty_tier": "gold"})], None)
    assert evaluate(check, added)


def test_an_answer_without_the_lookup_is_a_guess(hotel):
    from agentworld.servers.tasks import Step

    env, _ = hotel
    checks = [{"kind": "answer_includes", "values": [3], "name": "answer"},
              {"kind": "called", "tool": "search_reservations",
               "arguments": {"guest_id": "gue_000009"}, "name": "looked up"}]
    verify = compile_rubric(checks)
    guessed = verify(run(env, [], "3"))
    assert guessed.score == 0.5 and guessed.reward == 0.0 and not guessed.passed
    looked = run(env, [], "3")
    trajectory = (Step("search_reservations", {"guest_id": "gue_000009", "limit": 100}, True, {}),)
    looked = VerifierInput(looked.initial, looked.final, "3", trajectory)
    assert verify(looked).passed

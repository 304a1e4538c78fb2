"""The rule-based diagnosis on hand-built episodes: every class, the aggregates, the rankings
and the guidelines they lead to."""

from agentworld.trainer.arena.diagnosis import (
    CLASSES,
    EnvFacts,
    classify_episode,
    diagnose,
    family_of,
    step_classes,
)
from agentworld.trainer.arena.guidelines import focus_of, write_guidelines
from agentworld.trainer.arena.records import EpisodeRecord, StepRecord

FACTS = EnvFacts(tool_kinds={"search_bookings": "query", "get_booking": "query",
                             "update_booking": "mutation", "cancel_booking": "mutation",
                             "create_booking": "mutation"},
                 rules=[{"id": "no-cancel-after-check-in", "code": "PRECONDITION_FAILED",
                         "tools": ["cancel_booking"]}])


def ep(steps, *, env="hotel", passed=False, submitted=True, truncated=False,
       reference=("search_bookings", "cancel_booking"), prompt="Cancel booking bkg_000001.",
       components=None):
    return EpisodeRecord(env_id=env, task_id=f"{env}/t", l1="Travel & Transportation",
                         l2="Lodging", prompt=prompt, reference_tools=list(reference),
                         steps=[StepRecord(*s) for s in steps], submitted=submitted,
                         truncated=truncated, passed=passed, reward=1.0 if passed else 0.0,
                         components=components or {})


def classes(e):
    return step_classes(e, FACTS)


def test_step_classes_cover_every_error_kind():
    e = ep([("search_bookings", {"query": "x"}, True, None, {"bookings": [{"id": "bkg_7"}]}),
            ("cancel_booking", {"id": 3}, False, "VALIDATION_ERROR", {}),
            ("cancel_booking", {"id": "bkg_999"}, False, "NOT_FOUND", {}),
            ("cancel_booking", {"id": "bkg_7"}, False, "NOT_FOUND", {}),
            ("cancel_booking", {"id": "bkg_000001"}, False, "PRECONDITION_FAILED", {}),
            ("delete_everything", {}, False, "UNKNOWN_TOOL", {}),
            ("update_booking", {"id": "bkg_7"}, True, None, {"booking": {}}),
            ("cancel_booking", {"id": "bkg_000001"}, False, "PRECONDITION_FAILED", {})])
    assert classes(e) == [None, "invalid_arguments", "hallucinated_id", "broken_rule",
                          "broken_rule", "wrong_tool", "wrong_tool", "loop"]


def test_episode_causes():
    ok_search = ("search_bookings", {}, True, None, {"bookings": []})
    cancel = ("cancel_booking", {"id": "bkg_000001"}, True, None, {"booking": {}})
    cases = {
        "out_of_steps": ep([ok_search], truncated=True, submitted=False),
        "missing_submit": ep([ok_search], submitted=False),
        "premature_submit": ep([ok_search]),
        "wrong_answer": ep([ok_search, cancel]),
        "invalid_arguments": ep([("cancel_booking", {"id": 1}, False, "VALIDATION_ERROR", {})]),
        "loop": ep([ok_search, ok_search, ok_search], truncated=True, submitted=False),
    }
    for expected, e in cases.items():
        assert classify_episode(e, classes(e), FACTS) == expected, expected
    assert classify_episode(ep([ok_search, cancel], passed=True), [None, None], FACTS) is None
    assert set(CLASSES) >= set(cases)


def test_aggregates_rank_the_failing_family_and_environment_first():
    bad = ("update_booking", {"id": {"v": 1}}, False, "VALIDATION_ERROR", {})
    good = ("search_bookings", {}, True, None, {"bookings": [{"id": "bkg_1"}]})
    cancel = ("cancel_booking", {"id": "bkg_1"}, True, None, {"booking": {}})
    episodes = ([ep([good, bad], env="weak", reference=("search_bookings", "update_booking"))
                 for _ in range(3)]
                + [ep([good, cancel], env="strong", passed=True) for _ in range(3)]
                + [ep([good, cancel], env="middling", passed=i == 0) for i in range(2)])
    facts = {name: FACTS for name in ("weak", "strong", "middling")}
    d = diagnose(episodes, facts)
    assert [w["env_id"] for w in d.weak_envs] == ["weak", "middling"]
    assert d.weak_abilities[0]["family"] == "update"
    assert d.weak_abilities[0]["step_error_rate"] == 1.0
    assert d.by["error_code"]["VALIDATION_ERROR"]["steps"] == 3
    assert d.by["l1"]["Travel & Transportation"]["episodes"] == 8
    assert d.overall["success"] == round(4 / 8, 4)
    assert diagnose(episodes, facts).to_dict() == d.to_dict()      # deterministic
    g = write_guidelines(d, episodes, facts, weak_envs=2, complexify=1, round_index=1)
    assert g["focus_families"] == ["update"]
    first = g["envs"][0]
    assert first["env_id"] == "weak" and first["complexify"] is True
    assert first["focus_tools"][0] == "update_booking"
    assert "update_booking" in focus_of(first).tools
    assert any("update_*" in n for n in g["notes"])


def test_broken_rules_are_named_in_the_guidelines():
    refused = ("cancel_booking", {"id": "bkg_000001"}, False, "PRECONDITION_FAILED", {})
    episodes = [ep([refused])]
    d = diagnose(episodes, {"hotel": FACTS})
    g = write_guidelines(d, episodes, {"hotel": FACTS}, weak_envs=1, complexify=0,
                         round_index=1)
    assert g["envs"][0]["broken_rules"][0]["id"] == "no-cancel-after-check-in"
    assert "failures that depend on the data: broken_rule" in g["envs"][0]["reasons"]


def test_family_of():
    assert family_of("update_booking") == "update" and family_of("submit") == "submit"


def test_no_tool_call_or_a_malformed_one_is_its_own_class():
    answered = ep([], reference=("search_bookings",))          # plain text at once
    malformed = ep([("<malformed>", {}, False, "MALFORMED_ACTION", {})])
    for e in (answered, malformed):
        assert classify_episode(e, classes(e), FACTS) == "no_tool_call"
    # A question that needs no tool is not this class.
    assert classify_episode(ep([], reference=()), [], FACTS) == "wrong_answer"
    d = diagnose([answered, malformed], {"hotel": FACTS})
    assert d.by["class"]["no_tool_call"]["episodes"] == 2


def test_ties_are_broken_by_evidence_not_by_name():
    bad = ("update_booking", {"id": {"v": 1}}, False, "VALIDATION_ERROR", {})
    good = ("search_bookings", {}, True, None, {"bookings": [{"id": "bkg_1"}]})
    # Same weakness (success 0, error rate 1/2); "zz" has three failed episodes, "aa" one.
    episodes = ([ep([good, bad], env="zz") for _ in range(3)] + [ep([good, bad], env="aa")])
    d = diagnose(episodes, {"zz": FACTS, "aa": FACTS})
    assert [w["env_id"] for w in d.weak_envs] == ["zz", "aa"]
    assert d.weak_envs[0]["weakness"] == d.weak_envs[1]["weakness"]


def test_a_policy_that_fails_nearly_everything_gets_an_easier_curriculum():
    bad = ("update_booking", {"id": {"v": 1}}, False, "VALIDATION_ERROR", {})
    episodes = [ep([bad], env="hotel") for _ in range(10)]
    d = diagnose(episodes, {"hotel": FACTS})
    g = write_guidelines(d, episodes, {"hotel": FACTS}, weak_envs=1, complexify=1,
                         round_index=1)
    assert g["curriculum"] == "easier" and g["train_tool_view"].startswith("compact:")
    env = g["envs"][0]
    assert env["complexify"] is False and env["long_tasks"] is False
    focus = focus_of(env)
    assert focus.max_calls is not None and focus.max_calls <= 2 and not focus.long
    fine = [ep([("search_bookings", {}, True, None, {})], env="hotel", passed=True)
            for _ in range(5)]
    g2 = write_guidelines(diagnose(fine + episodes[:5], {"hotel": FACTS}), fine + episodes[:5],
                          {"hotel": FACTS}, weak_envs=1, complexify=1, round_index=1)
    assert g2["curriculum"] == "targeted" and g2["train_tool_view"] is None

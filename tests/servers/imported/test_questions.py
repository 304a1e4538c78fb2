"""Release questions as tasks: every question, its tool chain, its answer (value or data)."""

from __future__ import annotations

import json

import pytest

from agentworld.servers import Session
from agentworld.servers.imported import chain_match, differences, normalize_answer
from agentworld.servers.imported.tasks import stated_options
from agentworld.servers.imported.compare import by_design
from agentworld.servers.tasks import Step, VerifierInput

from .release_fixture import LIBRARY_QUESTIONS


@pytest.fixture
def library(catalog):
    return catalog.load("aw-0000001")


def _run(env, calls, answer):
    """Play ``calls`` in a fresh session and score ``answer`` with each question's verifier."""
    session = Session(env, seed=0)
    initial = env.template.clone()
    try:
        steps = []
        for tool, arguments in calls:
            result = session.call(tool, arguments)
            steps.append(Step(tool, arguments, result.ok, result.payload()))
        run = VerifierInput(initial, session.db, answer, tuple(steps))
        return {t.id: t.verifier(run) for t in env.tasks}
    finally:
        initial.close()
        session.close()


def test_every_release_question_is_a_task_with_its_rubric(library, catalog):
    tasks = library.tasks
    assert [t.id for t in tasks] == ["question-1", "question-2", "question-3"]
    assert [t.prompt for t in tasks] == [q["task"] for q in LIBRARY_QUESTIONS]
    first = tasks[0]
    assert first.kind == "release-question" and first.reference_answer == "4"
    assert first.metadata["success_criteria"] == ["The answer says 4."]
    assert first.reference_calls == (("list_books", {"genre": "scifi"}),)
    assert tasks[2].metadata["answer_is_data"] is True
    assert len(catalog.load("aw-0000004").tasks) == 1         # from questions.parquet


def test_reference_solutions_pass_and_the_untouched_state_fails(library):
    for task in library.tasks:
        verdicts = _run(library, task.reference_calls, task.reference_answer)
        assert verdicts[task.id].passed, (task.id, verdicts[task.id])
        untouched = _run(library, (), None)[task.id]
        assert not untouched.passed and untouched.reward == 0.0


def test_the_chain_and_the_answer_are_scored_apart(library):
    right_calls = [("list_books", {"genre": "scifi"})]
    verdict = _run(library, right_calls, "There are 4.")["question-1"]
    assert verdict.passed and verdict.components == {"answer": 1.0, "tool chain": 1.0}
    no_calls = _run(library, [], "4")["question-1"]
    assert not no_calls.passed and no_calls.components == {"answer": 1.0, "tool chain": 0.0}
    wrong = _run(library, right_calls, "5")["question-1"]
    assert not wrong.passed and wrong.components["answer"] == 0.0


def test_raw_output_answers_are_read_from_the_reply_not_from_the_calls(library):
    chain = [("list_authors", {}), ("get_author", {"author_id": "au_2"})]
    said = _run(library, chain, "Jane Austen: she wrote Emma and Persuasion.")["question-3"]
    assert said.passed
    # The right calls do not answer for the agent: a reply that names nothing, or the wrong
    # author's books, gets nothing for the answer.
    assert not _run(library, chain, "Here you are.")["question-3"].passed
    wrong = _run(library, chain, "Frank Herbert wrote Dune and Children of Dune.")["question-3"]
    assert not wrong.passed and wrong.reward == 0.0 and wrong.components["answer"] == 0.0
    half = _run(library, chain, "Jane Austen wrote Emma.")["question-3"]
    assert half.components["answer"] == 0.0
    # The agent may also answer with the data itself, reformatted.
    answer = json.dumps(json.loads(LIBRARY_QUESTIONS[2]["reference_answer"]), indent=4)
    assert _run(library, chain, answer)["question-3"].components["answer"] == 1.0


def test_a_wrong_or_hedged_value_after_the_right_chain_gets_nothing(library):
    right_calls = [("list_books", {"genre": "scifi"})]
    assert _run(library, right_calls, "4")["question-1"].passed
    for reply in ("5", "About 4.", "Probably 4, but I am not sure."):
        verdict = _run(library, right_calls, reply)["question-1"]
        assert verdict.reward == 0.0 and verdict.components["answer"] == 0.0, reply


def test_options_the_question_states_are_checked_on_the_call():
    chain = [("share_page", {"page_id": "pg_1", "member": "ana", "permission": "EDIT"}),
             ("list_books", {"genre": "scifi", "limit": 5})]
    required = {"share_page": ["page_id", "member"], "list_books": []}
    question = "Give Ana edit access to page pg_1, then count the books."
    stated = stated_options(chain, required, question)
    assert stated == {0: ["permission"]}          # "5" (a page size) is not in the question

    def steps(permission):
        return [Step("share_page", {"page_id": "pg_1", "member": "ana",
                                    "permission": permission}, True, {}),
                Step("list_books", {"genre": "fantasy"}, True, {})]

    assert chain_match(chain, required, steps("edit"), stated) == 1.0
    assert chain_match(chain, required, steps("VIEW"), stated) == 0.0
    assert chain_match(chain, required, steps("VIEW")) == 1.0   # without the stated options


def test_chain_arguments_must_agree_on_required_parameters():
    chain = [("get_author", {"author_id": "au_2"}), ("get_book", {"book_id": "bk_4"})]
    required = {"get_author": ["author_id"], "get_book": ["book_id"]}

    def steps(*calls, ok=True):
        return [Step(tool, args, ok, {}) for tool, args in calls]

    assert chain_match(chain, required, steps(("get_author", {"author_id": "AU_2 "}),
                                              ("get_book", {"book_id": "bk_4"}))) == 1.0
    assert chain_match(chain, required, steps(("get_book", {"book_id": "bk_4"}),
                                              ("get_author", {"author_id": "au_2"}))) == 0.5
    assert chain_match(chain, required, steps(("get_author", {"author_id": "au_1"}))) == 0.0
    assert chain_match(chain, required, steps(("get_author", {"author_id": "au_2"}),
                                              ok=False)) == 0.0


def test_differences_are_classified():
    a = {"id": "tc_0123456789abcdef", "at": "2026-03-02T09:00:30Z", "latency_ms": 0,
         "ref": "d8bbb340-3b13-4ce2-9c87-5f541bd1112f", "name": "Ada", "rows": [1, 2]}
    b = {"id": "tc_fedcba9876543210", "at": "2026-12-01T14:30:00Z", "latency_ms": 3,
         "ref": "0b5a6d47-8b43-4c8e-b0c2-06a1d54f1bb2", "name": "Ada", "rows": [1, 2]}
    found = dict(differences(a, b))
    assert found == {"$.id": "ids", "$.at": "clock", "$.latency_ms": "clock", "$.ref": "ids"}
    assert by_design(list(found.items()))
    assert dict(differences({"n": 1, "rows": [1]}, {"n": 2, "rows": []})) == {
        "$.n": "value", "$.rows": "shape"}
    assert normalize_answer(" $1,200.00 ") == "1200"

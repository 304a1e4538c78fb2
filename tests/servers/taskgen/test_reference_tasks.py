"""The hand-written reference tasks: enough of them, long ones included, all through the gates."""

from __future__ import annotations

import re
from functools import cache

import pytest

from agentworld.servers import Session, default_catalog
from agentworld.servers.taskgen.gates import check_gates
from agentworld.servers.taskgen.record import TaskRecord
from agentworld.servers.taskgen.reference import REFERENCE_TASKS

ENVS = ("airline", "github", "notion")


@cache
def _tasks(env_id: str) -> tuple[TaskRecord, ...]:
    return tuple(REFERENCE_TASKS[env_id]())


def test_every_reference_environment_has_a_builder():
    assert set(REFERENCE_TASKS) == set(ENVS)


@pytest.mark.parametrize("env_id", ENVS)
def test_counts_and_splits(env_id):
    tasks = _tasks(env_id)
    assert len(tasks) >= 14
    long = [t for t in tasks if t.split == "long_horizon"]
    assert len(long) >= 3
    assert all(len(t.reference_calls) >= 15 for t in long)
    assert {t.difficulty for t in tasks} >= {"easy", "medium", "hard"}
    ids = [t.id for t in tasks]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(rf"{env_id}/ref-\d{{3}}", i) for i in ids)
    assert all(t.env_id == env_id and t.kind == "programmatic" for t in tasks)


@pytest.mark.parametrize("env_id", ENVS)
def test_builders_are_deterministic(env_id):
    again = REFERENCE_TASKS[env_id]()
    assert [t.to_dict() for t in again] == [t.to_dict() for t in _tasks(env_id)]


@pytest.mark.parametrize("env_id", ENVS)
def test_every_reference_call_succeeds(env_id):
    env = default_catalog().load(env_id)
    for task in _tasks(env_id):
        session = Session(env, seed=task.session_seed)
        try:
            for name, args in task.reference_calls:
                result = session.call(name, args)
                assert result.ok, (task.id, name, result.payload())
        finally:
            session.close()


@pytest.mark.parametrize("env_id", ENVS)
def test_every_task_passes_the_gates(env_id):
    env = default_catalog().load(env_id)
    failed = {}
    for task in _tasks(env_id):
        ok, gate, measured = check_gates(env, task)
        if not ok:
            failed[task.id] = (gate, measured)
    assert not failed


def _found_values(task: TaskRecord) -> list[str]:
    """Numbers and ids the agent must find and report (strings of the answer checks)."""
    out = []
    for check in task.checks:
        if check["kind"] != "answer_includes":
            continue
        for value in check["values"]:
            text = str(int(value)) if isinstance(value, float) and value.is_integer() else str(
                value)
            if re.fullmatch(r"[\d.]+|[A-Z0-9]{6}", text):
                out.append(text)
    return out


@pytest.mark.parametrize("env_id", ENVS)
def test_prompts_do_not_give_the_answer_away(env_id):
    for task in _tasks(env_id):
        for value in _found_values(task):
            assert not re.search(rf"(?<![\w.-]){re.escape(value)}(?![\w-]|\.\d)", task.prompt), (
                task.id, value)


@pytest.mark.parametrize("env_id", ENVS)
def test_doing_nothing_earns_nothing_and_answers_alone_never_pass(env_id):
    """A task whose only checks are answers must still need the right answer."""
    for task in _tasks(env_id):
        assert task.checks and any(not c.get("guard") for c in task.checks)
        if all(c["kind"] == "answer_includes" for c in task.checks):
            assert task.reference_answer not in (None, "", "0", "1"), task.id

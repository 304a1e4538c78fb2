"""The learning benchmark's two environments: the splits keep held-out wording and entities out
of every training set, and each task's verifier passes its reference solution and fails the
untouched database (so a reward means the work was done)."""

import re
import sys
from pathlib import Path

import pytest

from agentworld.servers import Catalog

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from _learning_envs import DEFINITIONS  # noqa: E402


def _by_split(definition):
    out: dict[str, list] = {}
    for task in definition.tasks:
        out.setdefault(task.metadata["split"], []).append(task)
    return out


@pytest.mark.parametrize("definition", DEFINITIONS, ids=lambda d: d.manifest.id)
def test_rewordings_are_of_train_tasks_only_and_never_the_held_out_template(definition):
    splits = _by_split(definition)
    assert set(splits) == {"train", "eval", "paraphrase", "reworded"}
    train = {t.id: t for t in splits["train"]}
    held_out = {t.id for t in splits["eval"]}
    assert len(splits["reworded"]) == 3 * len(train)
    for task in splits["reworded"]:
        base, _, k = task.id.rpartition("-rw")
        assert base in train and base not in held_out and k in {"0", "1", "2"}
        assert task.reference_calls == train[base].reference_calls
        assert task.prompt != train[base].prompt
    # The held-out template is shared by no training prompt: compare prompts with the
    # entities (the titles in quotes, ids, SKUs and numbers) taken out.
    def shape(prompt):
        words = re.sub(r"'[^']*'", "'TITLE'", prompt).split()
        return " ".join(w for w in words if not any(c.isdigit() or c == "_" for c in w))
    held_shapes = {shape(t.prompt) for t in splits["paraphrase"]}
    train_shapes = {shape(t.prompt) for t in [*splits["train"], *splits["reworded"]]}
    assert not held_shapes & train_shapes


@pytest.mark.parametrize("definition", DEFINITIONS, ids=lambda d: d.manifest.id)
def test_every_reworded_task_is_solved_by_its_reference_and_not_by_doing_nothing(definition):
    from agentworld.hub.episode import Episode

    catalog = Catalog(modules={})
    catalog.add(definition)
    env = catalog.load(definition.manifest.id)
    for task in _by_split(definition)["reworded"]:
        for calls, answer, passes in ((task.reference_calls, task.reference_answer, True),
                                      ((), None, False)):
            episode = Episode(env, task=task)
            try:
                for name, arguments in calls:
                    episode.step({"name": name, "arguments": dict(arguments)})
                submit = {"answer": answer} if answer is not None else {}
                reward = episode.step({"name": "submit", "arguments": submit}).reward
            finally:
                episode.close()
            assert (reward == 1.0) is passes, (task.id, passes)


def test_a_price_answer_passes_in_any_equivalent_form_and_fails_otherwise():
    from agentworld.hub.episode import Episode

    catalog = Catalog(modules={})
    catalog.add(DEFINITIONS[1])
    env = catalog.load("stock")
    task = next(t for t in DEFINITIONS[1].tasks if t.id == "price-SKU-121")
    assert task.reference_answer == "5.50"
    for answer, passes in (("5.50", True), ("5.5", True), ("$5.50", True),
                           ("It sells for 5.50 dollars.", True),
                           ("SKU-121 costs $5.50", True), ("5.05", False),
                           ("5.50 or 6.25", False), ("", False), ("SKU-121", False)):
        episode = Episode(env, task=task)
        try:
            reward = episode.step({"name": "submit", "arguments": {"answer": answer}}).reward
        finally:
            episode.close()
        assert (reward == 1.0) is passes, answer


def test_a_price_answer_after_a_write_fails():
    """The right price read off ``set_stock``'s result is not an answer to a question: the
    write changed the stock (a trained policy did exactly this and was rewarded)."""
    from agentworld.hub.episode import Episode

    catalog = Catalog(modules={})
    catalog.add(DEFINITIONS[1])
    env = catalog.load("stock")
    task = next(t for t in DEFINITIONS[1].tasks if t.id == "price-SKU-121")
    for calls, passes in (([("get_product", {"sku": "SKU-121"})], True),
                          ([("set_stock", {"sku": "SKU-121", "quantity": 10})], False),
                          ([("set_stock", {"sku": "SKU-100", "quantity": 3})], False)):
        episode = Episode(env, task=task)
        try:
            for name, arguments in calls:
                episode.step({"name": name, "arguments": arguments})
            reward = episode.step({"name": "submit", "arguments": {"answer": "5.50"}}).reward
        finally:
            episode.close()
        assert (reward == 1.0) is passes, calls

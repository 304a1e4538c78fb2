"""The pilot's draw list comes from a finished run's filter, as that run would have drawn it."""

import sys
from collections import Counter
from pathlib import Path

import pytest

from agentworld.trainer.tasks import TaskRef

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from learning_pilot import _args, chosen_prompts  # noqa: E402


def _ref(task_id: str) -> TaskRef:
    return TaskRef(env_id="stock", task_id=task_id, prompt=task_id, env_title="stock",
                   category="bench", tool_names=("submit",), split="reworded",
                   reference_calls=(), reference_answer=None, max_steps=4, metadata={},
                   tool_view="full", relevant_tools=())


PROMPTS = [_ref(i) for i in ("set-1-rw1", "set-2-rw0", "price-1-rw0", "price-2-rw1")]
RUN = {"grpo_tasks": {
    "tries": {"stock/set-1-rw1": 4, "stock/set-2-rw0": 12, "stock/price-1-rw0": 4,
              "stock/price-2-rw1": 4},
    "successes": {"stock/set-1-rw1": 1, "stock/set-2-rw0": 0, "stock/price-1-rw0": 2,
                  "stock/price-2-rw1": 4},
    "chosen": ["stock/set-1-rw1", "stock/price-1-rw0", "stock/set-2-rw0"],
    "unsolved_kept": ["stock/set-2-rw0"]}}


def test_the_draw_list_weights_the_runs_chosen_prompts_by_kind_failure():
    _, args = _args(["run.json"])
    draws = Counter(t.task_id for t in chosen_prompts(RUN, PROMPTS, args))
    # "set" failed 15 of 16 tries, price 2 of 8: set holds most of the list, price-2 (never
    # chosen) none.
    assert set(draws) == {"set-1-rw1", "set-2-rw0", "price-1-rw0"}
    assert draws["set-1-rw1"] == draws["set-2-rw0"] > draws["price-1-rw0"] >= 1


def test_uniform_draws_and_no_unsolved_prompts_follow_the_benchmarks_flags():
    _, args = _args(["run.json", "--grpo-weight", "uniform", "--no-grpo-unsolved"])
    assert [t.task_id for t in chosen_prompts(RUN, PROMPTS, args)] == ["set-1-rw1",
                                                                      "price-1-rw0"]


def test_a_run_of_other_prompts_is_refused_and_the_output_never_overwrites_the_benchmarks():
    own, args = _args(["run.json", "--seed", "1", "--sft-dir", "/tmp/s"])
    assert args.seed == 1 and own.sft_dir == Path("/tmp/s") and own.run == Path("run.json")
    assert args.out.name == "learning_pilot.json"
    with pytest.raises(SystemExit, match="not this benchmark's"):
        chosen_prompts(RUN, PROMPTS[:2], args)

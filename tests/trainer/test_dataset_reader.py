"""Exported task sets load through datasets.load_dataset and OpenRLHF's own prompt reader."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

datasets = pytest.importorskip("datasets")
pytest.importorskip("openrlhf.datasets")

from agentworld.servers.taskgen.export import export_tasks, task_row  # noqa: E402
from agentworld.servers.taskgen.record import TaskRecord  # noqa: E402
from tests.fixtures.tiny_env import DEFINITION as TINY  # noqa: E402


def _records() -> list[TaskRecord]:
    return [TaskRecord(id=f"tiny/{t.id}", env_id="tiny", kind="programmatic", prompt=t.prompt,
                       checks=[], reference_calls=[list(c) for c in t.reference_calls],
                       split=split)
            for t, split in zip(TINY.tasks, ("train", "test"), strict=True)]


def test_openrlhf_prompt_dataset_reads_the_export(tmp_path, tiny_model_dir):
    from openrlhf.datasets import PromptDataset
    from transformers import AutoTokenizer

    rows: dict[str, list] = {}
    for record in _records():
        rows.setdefault(record.split, []).append(
            task_row(record, env_title="Tiny to-do", tool_names=TINY.tools.names()))
    export_tasks(rows, tmp_path, fmt="jsonl")
    loaded = datasets.load_dataset(str(tmp_path))
    assert set(loaded) == {"train", "test"}

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    args = SimpleNamespace(data=SimpleNamespace(input_key="prompt", label_key="label",
                                                apply_chat_template=True))
    strategy = SimpleNamespace(args=args, is_rank_0=lambda: True)
    prompts = PromptDataset(loaded["train"], tokenizer, strategy)
    _, prompt, label, _ = prompts[0]
    assert TINY.tasks[0].prompt in prompt and "Tiny to-do" in prompt
    assert json.loads(label) == {"env_id": "tiny", "task_id": f"tiny/{TINY.tasks[0].id}"}


def test_parquet_export_loads_too(tmp_path):
    pytest.importorskip("pyarrow")
    rows = {"train": [task_row(r, env_title="Tiny", tool_names=["list_items"])
                      for r in _records()]}
    export_tasks(rows, tmp_path, fmt="parquet")
    loaded = datasets.load_dataset(str(tmp_path))
    assert loaded["train"].num_rows == 2 and loaded["train"][0]["ability"] == "tool_use"

import json

import pytest

from agentworld.servers.taskgen.export import export_tasks, task_row
from agentworld.servers.taskgen.generate import generate_tasks


@pytest.fixture(scope="module")
def rows(hotel):
    env, compiled = hotel
    records, _ = generate_tasks(env, compiled=compiled, per_env=10)
    by_split = {}
    for record in records:
        by_split.setdefault(record.split, []).append(
            task_row(record, env_title="Test Hotels", tool_names=env.tools.names()))
    return by_split


def test_jsonl_rows_follow_the_verl_and_openrlhf_schema(rows, tmp_path):
    counts = export_tasks(rows, tmp_path, fmt="jsonl")
    first = json.loads((tmp_path / "train.jsonl").read_text().splitlines()[0])
    assert first["prompt"][0]["role"] == "system" and first["prompt"][1]["role"] == "user"
    assert json.loads(first["label"])["task_id"] == first["reward_model"]["ground_truth"]
    assert first["extra_info"]["split"] == "train"
    assert sum(counts.values()) == sum(len(v) for v in rows.values())
    assert "split: train" in (tmp_path / "README.md").read_text()


def test_datasets_loads_the_export(rows, tmp_path):
    datasets = pytest.importorskip("datasets", reason="the [train] extra brings datasets")
    export_tasks(rows, tmp_path, fmt="jsonl")
    loaded = datasets.load_dataset(str(tmp_path))
    assert set(loaded) == set(rows)
    assert loaded["train"][0]["reward_model"]["style"] == "rule"

"""The generated OpenRLHF command, parsed by OpenRLHF 0.11's own argument parser."""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import shlex
from pathlib import Path

import pytest

from agentworld.trainer.openrlhf_backend import (
    OpenRLHFConfig,
    agent_file,
    build_command,
    write_dataset,
)


def _openrlhf_parser() -> argparse.ArgumentParser:
    """The parser of ``openrlhf.cli.train_ppo_ray``, compiled from its installed source: the
    statements of its ``__main__`` block up to ``parse_args`` (importing the module needs Ray)."""
    spec = importlib.util.find_spec("openrlhf")
    if spec is None:
        pytest.skip("openrlhf is not installed (pip install --no-deps openrlhf)")
    path = Path(spec.submodule_search_locations[0]) / "cli/train_ppo_ray.py"
    tree = ast.parse(path.read_text())
    main = next(n for n in tree.body if isinstance(n, ast.If)
                and "__main__" in ast.unparse(n.test))
    body = []
    for stmt in main.body:
        if "parse_args" in ast.unparse(stmt):
            break
        body.append(stmt)
    namespace = {"argparse": argparse, "datetime": __import__("datetime").datetime}
    exec(compile(ast.Module(body=body, type_ignores=[]), str(path), "exec"), namespace)
    return namespace["parser"]


def _parsed(cmd):
    from openrlhf.utils.config import hierarchize

    assert cmd[1:3] == ["-m", "openrlhf.cli.train_ppo_ray"]
    return hierarchize(_openrlhf_parser().parse_args(cmd[3:]))


def test_command_parses_with_the_0_11_flags(tmp_path):
    cfg = OpenRLHFConfig(model="/models/smollm2", dataset=str(tmp_path / "data"),
                         output_dir=str(tmp_path / "out"), n_samples_per_prompt=8, gpus=2,
                         vllm_engines=2)
    args = _parsed(build_command(cfg))
    assert args.algo.advantage.estimator == "group_norm"
    assert args.rollout.n_samples_per_prompt == 8
    assert args.algo.kl.use_loss is True and args.algo.kl.estimator == "k3"
    assert args.vllm.num_engines == 2 and args.actor.num_gpus_per_node == 2
    assert args.train.agent_func_path == str(agent_file()) and agent_file().exists()
    assert (args.data.input_key, args.data.label_key) == ("prompt", "label")
    assert args.data.apply_chat_template is True
    assert args.actor.model_name_or_path == "/models/smollm2"
    assert args.train.colocate_all and args.vllm.enable_sleep
    # OpenRLHF's own check: group_norm needs more than one sample per prompt.
    assert args.rollout.n_samples_per_prompt > 1


def test_every_flag_is_known_to_openrlhf(tmp_path):
    parser = _openrlhf_parser()
    known = {opt for action in parser._actions for opt in action.option_strings}
    cmd = build_command(OpenRLHFConfig(model="m", dataset="d", output_dir="o"))
    flags = [tok for tok in cmd[3:] if tok.startswith("--")]
    assert flags and set(flags) <= known, set(flags) - known


def test_dataset_rows_match_the_command_keys(tmp_path, tiny_tasks):
    counts = write_dataset(tiny_tasks, tmp_path)
    assert counts == {"train": 2}
    rows = [json.loads(line) for line in (tmp_path / "train.jsonl").read_text().splitlines()]
    assert {"prompt", "label"} <= set(rows[0])
    assert [m["role"] for m in rows[0]["prompt"]] == ["system", "user"]
    assert json.loads(rows[0]["label"]) == {"env_id": "tiny", "task_id": "complete-item-3"}


def test_cli_prints_the_command(tmp_path, capsys):
    from agentworld.cli import main

    code = main(["train", "--backend", "openrlhf", "--envs", "tests.fixtures.tiny_env:DEFINITION",
                 "--model", "/models/x", "--output", str(tmp_path), "--hub-url",
                 "http://127.0.0.1:9"])
    assert code == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    words = shlex.split(line)
    assert words[0] == "AGENTWORLD_HUB_URL=http://127.0.0.1:9"
    args = _parsed(words[1:])
    assert args.data.prompt_dataset == str(tmp_path / "dataset")
    assert (tmp_path / "dataset" / "train.jsonl").exists()

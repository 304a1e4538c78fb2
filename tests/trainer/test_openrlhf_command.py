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
    LAUNCHER,
    OpenRLHFConfig,
    agent_file,
    build_command,
    openrlhf_args,
    optimizer_steps,
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

    assert cmd[1:3] == ["-m", LAUNCHER]
    return hierarchize(_openrlhf_parser().parse_args(openrlhf_args(cmd)))


def test_command_parses_with_the_0_11_flags(tmp_path):
    cfg = OpenRLHFConfig(model="/models/smollm2", dataset=str(tmp_path / "data"),
                         output_dir=str(tmp_path / "out"), n_samples_per_prompt=8, gpus=2,
                         vllm_engines=2)
    args = _parsed(build_command(cfg, rows=64))
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
    cmd = build_command(OpenRLHFConfig(model="m", dataset="d", output_dir="o"), rows=10)
    flags = [tok for tok in openrlhf_args(cmd) if tok.startswith("--")]
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
                 "http://127.0.0.1:9", "--max-len", "12000", "--episodes", "3",
                 "--tool-view", "compact:5"])
    assert code == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    words = shlex.split(line)
    assert words[:2] == ["AGENTWORLD_HUB_URL=http://127.0.0.1:9", "AGENTWORLD_TOOL_VIEW=compact:5"]
    args = _parsed(words[2:])
    assert args.data.max_len == 12000 and args.train.num_episodes == 3
    assert args.ds.attn_implementation == "sdpa"
    assert args.data.prompt_dataset == str(tmp_path / "dataset")
    assert (tmp_path / "dataset" / "train.jsonl").exists()


def test_max_len_episodes_attention_and_kl_are_carried(tmp_path):
    cfg = OpenRLHFConfig(model="m", dataset="d", output_dir="o", max_len=16384, episodes=None,
                         min_steps=20, n_samples_per_prompt=8, train_batch_size=128,
                         kl_coef=0.0, attn_implementation="flash_attention_2")
    args = _parsed(build_command(cfg, rows=64))
    assert args.data.max_len == 16384
    # 64 prompts x 8 samples // 128 = 4 optimizer steps an episode: 5 episodes for 20 steps.
    assert optimizer_steps(64, cfg, 1) == 4 and args.train.num_episodes == 5
    assert args.ds.attn_implementation == "flash_attention_2"
    assert args.algo.kl.init_coef == 0.0 and args.algo.kl.use_loss is False   # 0 stays 0
    assert args.algo.dynamic_filtering_enable is True
    assert list(args.algo.dynamic_filtering_range) == [0.0, 1.0]
    default = _parsed(build_command(OpenRLHFConfig(model="m", dataset="d", output_dir="o"),
                                    rows=64))
    assert default.ds.attn_implementation == "sdpa" and default.algo.kl.use_loss is True


def test_cli_keeps_kl_zero(tmp_path, capsys):
    from agentworld.cli import main

    assert main(["train", "--backend", "openrlhf", "--envs", "tests.fixtures.tiny_env:DEFINITION",
                 "--model", "/m", "--output", str(tmp_path), "--hub-url", "http://h:1",
                 "--kl", "0"]) == 0
    words = shlex.split(capsys.readouterr().out.strip().splitlines()[-1])
    assert _parsed(words[2:]).algo.kl.init_coef == 0.0


def test_launcher_hands_the_hub_to_every_ray_worker(monkeypatch):
    from agentworld.trainer.errors import LaunchError
    from agentworld.trainer.openrlhf_launch import main, worker_env

    env = worker_env({"AGENTWORLD_HUB_URL": "http://hub:8000", "AGENTWORLD_TOOL_VIEW": "compact",
                      "NCCL_DEBUG": "INFO", "HOME": "/root"})
    assert env["AGENTWORLD_HUB_URL"] == "http://hub:8000"
    assert env["AGENTWORLD_TOOL_VIEW"] == "compact" and env["NCCL_DEBUG"] == "INFO"
    assert env["TOKENIZERS_PARALLELISM"] == "true" and "HOME" not in env
    with pytest.raises(LaunchError, match="AGENTWORLD_HUB_URL"):
        worker_env({})
    monkeypatch.delenv("AGENTWORLD_HUB_URL", raising=False)
    assert main(["--data.max_len", "10"]) == 2                 # loud, before Ray starts
    monkeypatch.setenv("AGENTWORLD_HUB_URL", "http://127.0.0.1:9")
    assert main(["--data.max_len", "10"]) == 2                 # no hub answers there


def test_launcher_initialises_ray_with_the_runtime_env(monkeypatch, hub_url):
    """The launcher's ray.init carries the env vars, and OpenRLHF then skips its own init."""
    import sys
    import types

    from agentworld.trainer import openrlhf_launch

    monkeypatch.setattr(sys, "argv", list(sys.argv))
    calls = {}
    fake_ray = types.SimpleNamespace(init=lambda **kw: calls.setdefault("init", kw))
    monkeypatch.setitem(sys.modules, "ray", fake_ray)
    monkeypatch.setattr(openrlhf_launch.runpy, "run_module",
                        lambda name, **kw: calls.setdefault("run", (name, list(sys.argv))))
    monkeypatch.setenv("AGENTWORLD_HUB_URL", hub_url)
    assert openrlhf_launch.main(["--data.max_len", "10"]) == 0
    assert calls["init"]["runtime_env"]["env_vars"]["AGENTWORLD_HUB_URL"] == hub_url
    assert calls["run"] == ("openrlhf.cli.train_ppo_ray",
                            ["openrlhf.cli.train_ppo_ray", "--data.max_len", "10"])

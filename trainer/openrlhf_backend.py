"""The OpenRLHF 0.11 backend (GPUs): the dataset, the GRPO command, and launching it.

OpenRLHF generates with vLLM and trains with DeepSpeed under Ray; it needs CUDA. This module
only writes the dataset and builds the command (dotted 0.11 flags), so it works anywhere; the
command runs where ``openrlhf[vllm]`` is installed (the Dockerfile's ``gpu`` target). Rollouts
reach the hub through :mod:`agentworld.trainer.openrlhf_agent`.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .tasks import TaskRef, task_rows

__all__ = ["OpenRLHFConfig", "agent_file", "write_dataset", "build_command", "launch"]


def agent_file() -> Path:
    """The agent file OpenRLHF loads by path."""
    return Path(__file__).with_name("openrlhf_agent.py")


@dataclass(frozen=True, kw_only=True)
class OpenRLHFConfig:
    model: str
    dataset: str
    output_dir: str
    n_samples_per_prompt: int = 8
    rollout_batch_size: int = 32
    train_batch_size: int = 128
    micro_batch_size: int = 4
    max_len: int = 4096
    max_new_tokens: int = 512
    learning_rate: float = 1e-6
    kl_coef: float = 1e-3
    episodes: int = 1
    gpus: int = 1
    vllm_engines: int = 1
    vllm_tp: int = 1
    vllm_gpu_memory: float = 0.5
    colocate: bool = True
    temperature: float = 1.0
    seed: int = 42


def write_dataset(tasks: Sequence[TaskRef], out: Path) -> dict[str, int]:
    """``<split>.jsonl`` files in the exported schema (``prompt`` messages, ``label`` JSON)."""
    from agentworld.servers.taskgen.export import export_tasks

    by_split: dict[str, list] = {}
    for row, task in zip(task_rows(tasks), tasks, strict=True):
        by_split.setdefault(task.split, []).append(
            {"prompt": row["prompt"], "label": row["label"], "data_source": row["data_source"]})
    return export_tasks(by_split, out, fmt="jsonl")


def build_command(cfg: OpenRLHFConfig, *, python: str = "python") -> list[str]:
    """``python -m openrlhf.cli.train_ppo_ray ...``: GRPO (group-normalised advantages, a KL
    loss, no critic) with vLLM rollouts driven by our agent file."""
    cmd = [python, "-m", "openrlhf.cli.train_ppo_ray",
           "--actor.model_name_or_path", cfg.model,
           "--actor.num_nodes", "1", "--actor.num_gpus_per_node", str(cfg.gpus),
           "--ref.num_nodes", "1", "--ref.num_gpus_per_node", str(cfg.gpus),
           "--vllm.num_engines", str(cfg.vllm_engines),
           "--vllm.tensor_parallel_size", str(cfg.vllm_tp),
           "--vllm.gpu_memory_utilization", str(cfg.vllm_gpu_memory),
           "--algo.advantage.estimator", "group_norm",
           "--rollout.n_samples_per_prompt", str(cfg.n_samples_per_prompt),
           "--algo.kl.use_loss", "--algo.kl.estimator", "k3",
           "--algo.kl.init_coef", str(cfg.kl_coef),
           "--train.agent_func_path", str(agent_file()),
           "--data.prompt_dataset", cfg.dataset, "--data.prompt_split", "train",
           "--data.input_key", "prompt", "--data.label_key", "label",
           "--data.apply_chat_template",
           "--data.max_len", str(cfg.max_len),
           "--rollout.max_new_tokens", str(cfg.max_new_tokens),
           "--rollout.batch_size", str(cfg.rollout_batch_size),
           "--rollout.micro_batch_size", str(cfg.micro_batch_size),
           "--rollout.temperature", str(cfg.temperature),
           "--train.batch_size", str(cfg.train_batch_size),
           "--train.micro_batch_size", str(cfg.micro_batch_size),
           "--train.num_episodes", str(cfg.episodes), "--train.max_epochs", "1",
           "--train.seed", str(cfg.seed),
           "--actor.adam.lr", str(cfg.learning_rate),
           "--ds.zero_stage", "2", "--ds.param_dtype", "bf16",
           "--actor.gradient_checkpointing_enable",
           "--ckpt.output_dir", cfg.output_dir, "--ckpt.save_hf",
           "--logger.logging_steps", "1"]
    if cfg.colocate:
        cmd += ["--train.colocate_all", "--vllm.enable_sleep", "--ds.enable_sleep"]
    return cmd


def launch(cmd: Sequence[str], *, hub_url: str, token: str | None = None,
           max_turn_tokens: int | None = None) -> int:
    """Run the command with the agent's environment variables; returns its exit status."""
    env = {**os.environ, "AGENTWORLD_HUB_URL": hub_url}
    if token:
        env["AGENTWORLD_TOKEN"] = token
    if max_turn_tokens:
        env["AGENTWORLD_MAX_TURN_TOKENS"] = str(max_turn_tokens)
    print("+", shlex.join(cmd), file=sys.stderr)
    return subprocess.call(list(cmd), env=env)

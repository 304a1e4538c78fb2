"""The OpenRLHF 0.11 backend (GPUs): the dataset, the GRPO command, and launching it.

OpenRLHF generates with vLLM and trains with DeepSpeed under Ray; it needs CUDA. This module
only writes the dataset and builds the command (dotted 0.11 flags), so it works anywhere; the
command runs where ``openrlhf[vllm]`` is installed (the Dockerfile's ``gpu`` target). Rollouts
reach the hub through :mod:`agentworld.trainer.openrlhf_agent`.
"""

from __future__ import annotations

import math
import os
import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .tasks import TaskRef, task_rows

__all__ = ["OpenRLHFConfig", "agent_file", "write_dataset", "build_command", "launch",
           "agent_env", "openrlhf_args", "optimizer_steps", "episodes_for", "LAUNCHER"]

LAUNCHER = "agentworld.trainer.openrlhf_launch"


def agent_file() -> Path:
    """The agent file OpenRLHF loads by path."""
    return Path(__file__).with_name("openrlhf_agent.py")


@dataclass(frozen=True, kw_only=True)
class OpenRLHFConfig:
    """The GRPO run. ``max_len`` is prompt plus response in tokens (OpenRLHF cuts longer prompts
    from the left); ``episodes`` None picks enough passes over the data for ``min_steps``
    optimizer steps; ``kl_coef`` 0 means no KL term and no reference model."""

    model: str
    dataset: str
    output_dir: str
    n_samples_per_prompt: int = 8
    rollout_batch_size: int = 32
    train_batch_size: int = 128
    micro_batch_size: int = 4
    max_len: int = 8192
    max_new_tokens: int = 512
    learning_rate: float = 1e-6
    kl_coef: float = 1e-3
    episodes: int | None = None
    min_steps: int = 20
    attn_implementation: str = "sdpa"
    dynamic_filtering: bool = True
    gpus: int = 1
    vllm_engines: int = 1
    vllm_tp: int = 1
    vllm_gpu_memory: float = 0.5
    colocate: bool = True
    temperature: float = 1.0
    seed: int = 42


def optimizer_steps(rows: int, cfg: OpenRLHFConfig, episodes: int) -> int:
    """OpenRLHF 0.11's count: rows x samples // train batch x episodes (one epoch each)."""
    return rows * cfg.n_samples_per_prompt // cfg.train_batch_size * episodes


def episodes_for(rows: int, cfg: OpenRLHFConfig) -> int:
    """``cfg.episodes``, or the fewest episodes that give ``cfg.min_steps`` optimizer steps."""
    if cfg.episodes is not None:
        return cfg.episodes
    per_episode = optimizer_steps(rows, cfg, 1)
    return max(1, math.ceil(cfg.min_steps / per_episode)) if per_episode else cfg.min_steps


def write_dataset(tasks: Sequence[TaskRef], out: Path) -> dict[str, int]:
    """``<split>.jsonl`` files in the exported schema (``prompt`` messages, ``label`` JSON)."""
    from agentworld.servers.taskgen.export import export_tasks

    by_split: dict[str, list] = {}
    for row, task in zip(task_rows(tasks), tasks, strict=True):
        by_split.setdefault(task.split, []).append(
            {"prompt": row["prompt"], "label": row["label"], "data_source": row["data_source"]})
    return export_tasks(by_split, out, fmt="jsonl")


def build_command(cfg: OpenRLHFConfig, *, rows: int, python: str = "python") -> list[str]:
    """``python -m agentworld.trainer.openrlhf_launch <OpenRLHF 0.11 flags>``: GRPO
    (group-normalised advantages, no critic, a KL loss when ``kl_coef`` > 0, dynamic filtering
    of groups whose rewards are all equal) with vLLM rollouts driven by our agent file. The
    launcher starts Ray with the hub's address in every worker's environment, then runs
    ``openrlhf.cli.train_ppo_ray``. ``rows`` is the number of training prompts."""
    cmd = [python, "-m", LAUNCHER,
           "--actor.model_name_or_path", cfg.model,
           "--actor.num_nodes", "1", "--actor.num_gpus_per_node", str(cfg.gpus),
           "--vllm.num_engines", str(cfg.vllm_engines),
           "--vllm.tensor_parallel_size", str(cfg.vllm_tp),
           "--vllm.gpu_memory_utilization", str(cfg.vllm_gpu_memory),
           "--algo.advantage.estimator", "group_norm",
           "--rollout.n_samples_per_prompt", str(cfg.n_samples_per_prompt),
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
           "--train.num_episodes", str(episodes_for(rows, cfg)), "--train.max_epochs", "1",
           "--train.seed", str(cfg.seed),
           "--actor.adam.lr", str(cfg.learning_rate),
           "--ds.zero_stage", "2", "--ds.param_dtype", "bf16",
           "--ds.attn_implementation", cfg.attn_implementation,
           "--actor.gradient_checkpointing_enable",
           "--ckpt.output_dir", cfg.output_dir, "--ckpt.save_hf",
           "--logger.logging_steps", "1"]
    if cfg.kl_coef > 0:
        cmd += ["--ref.num_nodes", "1", "--ref.num_gpus_per_node", str(cfg.gpus),
                "--algo.kl.use_loss", "--algo.kl.estimator", "k3"]
    if cfg.dynamic_filtering:
        # Groups whose mean reward is 0 or 1 have no advantage: keep only mixed groups.
        cmd += ["--algo.dynamic_filtering_enable", "--algo.dynamic_filtering_range", "0", "1"]
    if cfg.colocate:
        cmd += ["--train.colocate_all", "--vllm.enable_sleep", "--ds.enable_sleep"]
    return cmd


def openrlhf_args(cmd: Sequence[str]) -> list[str]:
    """The OpenRLHF flags of a :func:`build_command` command (what follows the launcher)."""
    return list(cmd[cmd.index(LAUNCHER) + 1:])


def agent_env(*, hub_url: str, token: str | None = None, max_turn_tokens: int | None = None,
              tool_view: str = "full") -> dict[str, str]:
    """The agent file's environment variables (what the launcher hands every Ray worker)."""
    env = {"AGENTWORLD_HUB_URL": hub_url, "AGENTWORLD_TOOL_VIEW": tool_view}
    if token:
        env["AGENTWORLD_TOKEN"] = token
    if max_turn_tokens:
        env["AGENTWORLD_MAX_TURN_TOKENS"] = str(max_turn_tokens)
    return env


def launch(cmd: Sequence[str], *, hub_url: str, token: str | None = None,
           max_turn_tokens: int | None = None, tool_view: str = "full") -> int:
    """Run the command with the agent's environment variables; returns its exit status."""
    env = {**os.environ, **agent_env(hub_url=hub_url, token=token,
                                     max_turn_tokens=max_turn_tokens, tool_view=tool_view)}
    print("+", shlex.join(cmd), file=sys.stderr)
    return subprocess.call(list(cmd), env=env)

"""Evaluation and statistics for the learning benchmark: greedy and sampled success per task
group, with 95% intervals, and the labelled plot."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["wilson", "bootstrap_mean", "evaluate_arm", "paired_difference", "plot"]

Z95 = 1.959964


def wilson(successes: int, n: int) -> dict[str, float]:
    """The share and its 95% Wilson score interval."""
    if n == 0:
        return {"rate": 0.0, "lo": 0.0, "hi": 0.0, "n": 0}
    p = successes / n
    denom = 1 + Z95 ** 2 / n
    centre = (p + Z95 ** 2 / (2 * n)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / denom
    return {"rate": round(p, 4), "lo": round(max(0.0, centre - half), 4),
            "hi": round(min(1.0, centre + half), 4), "n": n}


def bootstrap_mean(values: Sequence[float], *, resamples: int = 2000,
                   seed: int = 0) -> dict[str, float]:
    """The mean and its 95% percentile bootstrap interval (resampling the values: tasks)."""
    if not values:
        return {"rate": 0.0, "lo": 0.0, "hi": 0.0, "n": 0}
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(rng.choice(values) for _ in range(n)) / n for _ in range(resamples))
    return {"rate": round(sum(values) / n, 4), "lo": round(means[int(0.025 * resamples)], 4),
            "hi": round(means[int(0.975 * resamples) - 1], 4), "n": n}


def paired_difference(a: Sequence[float], b: Sequence[float], *, resamples: int = 2000,
                      seed: int = 1) -> dict[str, float]:
    """``mean(a - b)`` over the same tasks, with a 95% bootstrap interval over tasks."""
    return bootstrap_mean([x - y for x, y in zip(a, b, strict=True)], resamples=resamples,
                          seed=seed)


def _play(model, tokenizer, tasks, url, *, temperature: float, max_new_tokens: int,
          max_length: int, name: str) -> list:
    from agentworld.trainer.evaluate import evaluate_sync
    from agentworld.trainer.policies import HFPolicy

    policy = HFPolicy(model, tokenizer, name=name, temperature=temperature,
                      max_new_tokens=max_new_tokens, max_length=max_length)
    return evaluate_sync(policy, tasks, url).results


def evaluate_arm(model, tokenizer, groups: dict[str, list], url: str, *, samples: int,
                 temperature: float, max_new_tokens: int, max_length: int,
                 name: str) -> dict[str, Any]:
    """Per group: greedy success (Wilson interval over tasks), sampled success (``samples``
    episodes a task at ``temperature``; bootstrap interval over tasks of the per-task rate),
    and the per-task rates (for paired comparisons between arms)."""
    out: dict[str, Any] = {}
    started = time.perf_counter()
    for group, tasks in groups.items():
        greedy = _play(model, tokenizer, tasks, url, temperature=0.0,
                       max_new_tokens=max_new_tokens, max_length=max_length, name=name)
        sampled = _play(model, tokenizer, [t for t in tasks for _ in range(samples)], url,
                        temperature=temperature, max_new_tokens=max_new_tokens,
                        max_length=max_length, name=name) if samples else []
        per_task = [sum(r.passed for r in sampled[i * samples:(i + 1) * samples]) / samples
                    for i in range(len(tasks))] if samples else []
        out[group] = {
            "tasks": len(tasks),
            "greedy": wilson(sum(r.passed for r in greedy), len(greedy)),
            "greedy_per_task": [int(r.passed) for r in greedy],
            "sampled": bootstrap_mean(per_task),
            "sampled_per_task": per_task,
            "malformed_replies": sum(r.malformed for r in [*greedy, *sampled]),
            "no_tool_call_episodes": sum(1 for r in [*greedy, *sampled] if r.tool_calls == 0),
            "episodes": len(greedy) + len(sampled)}
        print(f"  {name:<14} {group:<16} greedy {out[group]['greedy']['rate']:.0%} "
              f"sampled {out[group]['sampled']['rate']:.0%}", flush=True)
    out["seconds"] = round(time.perf_counter() - started, 1)
    return out


def plot(figures: dict[str, Any], path: Path) -> None:
    """Two panels: held-out success per arm and task group (sampled, with 95% intervals),
    and the GRPO reward and zero-variance share per step."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    arms = [a for a in figures["arms"] if a in figures["results"]]
    groups = list(figures["held_out"])
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    width = 0.8 / max(1, len(arms))
    for i, arm in enumerate(arms):
        stats = [figures["results"][arm][g]["sampled"] for g in groups]
        xs = [g + (i - (len(arms) - 1) / 2) * width for g in range(len(groups))]
        rates = [s["rate"] for s in stats]
        errors = [[r - s["lo"] for r, s in zip(rates, stats, strict=True)],
                  [s["hi"] - r for r, s in zip(rates, stats, strict=True)]]
        left.bar(xs, rates, width=width, yerr=errors, capsize=3, label=arm)
    left.set_xticks(range(len(groups)), groups)
    left.set(ylim=(0, 1.05), ylabel="success (4 samples at T=0.7, 95% CI)",
             xlabel="held-out task group",
             title=f"{figures['model_name']}: held-out success by arm")
    left.legend(fontsize=8)
    curve = figures.get("grpo", {}).get("curve", [])
    steps = [p["step"] for p in curve]
    right.plot(steps, [p["reward"] for p in curve], marker="o", label="mean verifier reward")
    right.plot(steps, [p["zero_variance"] for p in curve], marker="s", linestyle="--",
               label="share of zero-variance groups")
    right.set(ylim=(-0.02, 1.02), xlabel="GRPO step", ylabel="share",
              title="GRPO on the hub (after SFT)")
    right.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)

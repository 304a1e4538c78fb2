"""The learning benchmark over several runs: pooled success and arm differences, with intervals
that count the run-to-run spread.

One run of ``bench/train_learning.py`` scores each arm on ten tasks a group, and runs of one
configuration have differed by 25 points: a single run's interval (over tasks) leaves out the
largest source of noise, training itself. This pools runs that played the same held-out tasks
(a different ``--seed`` each) and bootstraps at both levels, runs and then tasks within a run,
so the interval says how a new run would land.

    python bench/learning_seeds.py bench/results/train_learning.json \\
        bench/results/train_learning_seed1.json bench/results/train_learning_seed2.json

Writes ``bench/results/train_learning_seeds.json`` and ``.png`` (``--out`` to change).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
ALL = "all held-out"
COMPARISONS = (("sft+grpo", "sft"), ("sft+grpo", "sft+extra-sft"))
BAR_OVER_SFT = 0.20
# Settings that make runs different experiments; a run's seed is meant to differ.
CONFIG_KEYS = {"sft": ("epochs", "learning_rate"),
               "grpo": ("steps", "num_generations", "prompts_per_step", "iterations",
                        "learning_rate", "beta", "temperature"),
               "evaluation": ("samples", "temperature", "catalog_view"),
               "grpo_prompts": ("wordings",)}
# Settings recorded only since they became options: older runs used these values.
RECORDED_LATER = {("grpo", "temperature"): 1.0}


def load_runs(paths: list[Path]) -> list[dict[str, Any]]:
    """The runs, checked to have played the same held-out tasks (else arms cannot be paired
    across them). Smoke runs are refused: they claim nothing."""
    runs = []
    for path in paths:
        try:
            figures = json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path} is not JSON ({exc})") from None
        if not isinstance(figures, dict) or not {"arms", "held_out", "results"} <= set(figures):
            raise ValueError(f"{path} is not a result of train_learning.py")
        if figures.get("smoke"):
            raise ValueError(f"{path} is a --smoke run: it claims nothing")
        runs.append({"file": path.name, **figures})
    if not runs:
        raise ValueError("no runs given")
    first = runs[0]["held_out"]
    for run in runs[1:]:
        if run["held_out"] != first:
            raise ValueError(f"{run['file']} played other held-out tasks than "
                             f"{runs[0]['file']}: its arms cannot be paired with the others")
    return runs


def config_differences(runs: list[dict[str, Any]]) -> dict[str, list]:
    """``{"grpo.beta": [0.04, 0.0], ...}`` for each setting that is not the same in every run."""
    out = {}
    for section, keys in CONFIG_KEYS.items():
        for key in keys:
            values = [run.get(section, {}).get(key, RECORDED_LATER.get((section, key)))
                      for run in runs]
            if len(set(map(json.dumps, values))) > 1:
                out[f"{section}.{key}"] = values
    return out


def per_task(run: dict[str, Any], arm: str, group: str) -> list[float]:
    """An arm's sampled success per task of ``group`` (``ALL``: every group's, in order)."""
    results = run["results"][arm]
    groups = list(run["held_out"]) if group == ALL else [group]
    return [x for g in groups for x in results[g]["sampled_per_task"]]


def hierarchical_bootstrap(per_run: list[list[float]], *, resamples: int = 4000,
                           seed: int = 0) -> dict[str, float]:
    """The mean over runs of each run's mean over tasks, with a 95% percentile interval from
    resampling runs and then tasks within each resampled run."""
    if not per_run or not all(per_run):
        return {"mean": 0.0, "lo": 0.0, "hi": 0.0, "runs": len(per_run)}
    rng = random.Random(seed)
    means = []
    for _ in range(resamples):
        runs = [rng.choice(per_run) for _ in per_run]
        means.append(sum(sum(rng.choice(r) for _ in r) / len(r) for r in runs) / len(runs))
    means.sort()
    mean = sum(sum(r) / len(r) for r in per_run) / len(per_run)
    return {"mean": round(mean, 4), "lo": round(means[int(0.025 * resamples)], 4),
            "hi": round(means[int(0.975 * resamples) - 1], 4), "runs": len(per_run)}


def pool(runs: list[dict[str, Any]]) -> dict[str, Any]:
    groups = [*runs[0]["held_out"], ALL]
    arms = [a for a in runs[0]["arms"] if all(a in r["results"] for r in runs)]
    success = {arm: {g: hierarchical_bootstrap([per_task(r, arm, g) for r in runs])
                     for g in groups} for arm in arms}
    differences: dict[str, dict] = {}
    for a, b in COMPARISONS:
        if a not in arms or b not in arms:
            continue
        differences[f"{a} - {b}"] = {}
        for g in groups:
            diffs = [[x - y for x, y in zip(per_task(r, a, g), per_task(r, b, g), strict=True)]
                     for r in runs]
            differences[f"{a} - {b}"][g] = {
                **hierarchical_bootstrap(diffs, seed=1),
                "per_run": [round(sum(d) / len(d), 4) for d in diffs]}
    return {"groups": groups, "arms": arms, "success": success, "differences": differences}


def bar(pooled: dict[str, Any]) -> dict[str, Any]:
    """Issue 16's bar on the pooled figures: on all held-out tasks, SFT+GRPO at least 20 points
    above SFT and above the extra-SFT control. ``met`` asks it of the pooled mean; ``sure``
    asks it of the interval's lower end."""
    over_sft = pooled["differences"]["sft+grpo - sft"][ALL]
    over_control = pooled["differences"]["sft+grpo - sft+extra-sft"][ALL]
    return {"over_sft": over_sft["mean"], "over_control": over_control["mean"],
            "met": over_sft["mean"] >= BAR_OVER_SFT and over_control["mean"] > 0,
            "sure": over_sft["lo"] >= BAR_OVER_SFT and over_control["lo"] > 0}


def summarise(paths: list[Path]) -> dict[str, Any]:
    runs = load_runs(paths)
    pooled = pool(runs)
    return {"runs": [{"file": r["file"], "seed": r.get("seed"), "wall_s": r.get("wall_s"),
                      "mixed_prompts": r.get("grpo_tasks", {}).get("mixed")} for r in runs],
            "config_differences": config_differences(runs),
            "held_out": {g: len(ts) for g, ts in runs[0]["held_out"].items()},
            "interval": "95%, bootstrap over runs, then over tasks within each run",
            **pooled, "bar": bar(pooled)}


def table(summary: dict[str, Any]) -> str:
    groups = summary["groups"]
    lines = [f"{len(summary['runs'])} runs; sampled success, mean over runs [95% interval]",
             f"{'':<26}" + "".join(f"{g:>24}" for g in groups)]
    for arm in summary["arms"]:
        cells = [summary["success"][arm][g] for g in groups]
        lines.append(f"{arm:<26}" + "".join(
            f"{c['mean']:>9.1%} [{c['lo']:>5.1%}, {c['hi']:>5.1%}]" for c in cells))
    for name, by_group in summary["differences"].items():
        cells = [by_group[g] for g in groups]
        lines.append(f"{name:<26}" + "".join(
            f"{c['mean'] * 100:>+9.1f} [{c['lo'] * 100:>+5.1f}, {c['hi'] * 100:>+5.1f}]"
            for c in cells))
        lines.append(f"{'  per run':<26}" + "".join(
            f"{' '.join(f'{x * 100:+.1f}' for x in c['per_run']):>24}" for c in cells))
    b = summary["bar"]
    lines.append(f"bar (>= +20 over sft and > 0 over the control, {ALL}): "
                 f"{'met' if b['met'] else 'not met'} on the means "
                 f"({b['over_sft'] * 100:+.1f}, {b['over_control'] * 100:+.1f}); "
                 f"{'sure' if b['sure'] else 'not sure'} on the intervals")
    if summary["config_differences"]:
        lines.append(f"settings that differ between runs: {summary['config_differences']}")
    return "\n".join(lines)


def plot(summary: dict[str, Any], path: Path) -> None:
    """Each run's paired difference per group (dots) and the pooled mean with its interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = summary["groups"]
    fig, ax = plt.subplots(figsize=(10, 4.5))
    names = list(summary["differences"])
    width = 0.8 / max(1, len(names))
    for i, name in enumerate(names):
        offset = (i - (len(names) - 1) / 2) * width
        cells = [summary["differences"][name][g] for g in groups]
        xs = [k + offset for k in range(len(groups))]
        means = [c["mean"] * 100 for c in cells]
        errors = [[m - c["lo"] * 100 for m, c in zip(means, cells, strict=True)],
                  [c["hi"] * 100 - m for m, c in zip(means, cells, strict=True)]]
        ax.errorbar(xs, means, yerr=errors, fmt="o", capsize=4, markersize=8, label=name)
        for x, c in zip(xs, cells, strict=True):
            ax.scatter([x + width / 4] * len(c["per_run"]), [v * 100 for v in c["per_run"]],
                       s=12, color="grey", zorder=3)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.axhline(BAR_OVER_SFT * 100, color="red", linestyle=":", linewidth=1,
               label="bar over sft (+20)")
    ax.set_xticks(range(len(groups)), groups)
    ax.set(ylabel="difference in sampled success (points)", xlabel="held-out task group",
           title=f"{len(summary['runs'])} runs pooled: mean and 95% interval (runs, then "
                 "tasks); grey: each run")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+", type=Path, help="JSON results of train_learning.py")
    p.add_argument("--out", type=Path, default=RESULTS / "train_learning_seeds.json")
    args = p.parse_args(argv)
    try:
        summary = summarise(args.runs)
    except (OSError, ValueError) as exc:
        print(f"learning_seeds: {exc}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")
    plot(summary, args.out.with_suffix(".png"))
    print(table(summary))
    print(f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Readable reports: each round's diagnosis in markdown, and the run's summary table and plots
(success per round, per top-level category, per weak environment)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .plots import grouped_bars

__all__ = ["round_markdown", "summary_table", "write_summary"]


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.0%}"


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


def round_markdown(round_index: int, diagnosis: Mapping[str, Any],
                   guidelines: Mapping[str, Any], metrics: Mapping[str, Any]) -> str:
    """The round's diagnosis report (``diagnosis.md``)."""
    o = diagnosis["overall"]
    lines = [f"# Round {round_index}: diagnosis ({diagnosis['analyzer']})", "",
             f"Policy `{metrics['policy']}` on {o['episodes']} fresh evaluation tasks: "
             f"success {_pct(o['success'])}, partial credit {o['partial_credit']:.3f}, "
             f"{o['failed_steps']} failed steps of {o['steps']}.", "",
             "![success by category](plots/success_by_category.png)", "",
             "## Failure classes (episodes)", ""]
    classes = diagnosis["by"]["class"]
    lines += _table(["class", "episodes"], [(c, g["episodes"]) for c, g in classes.items()])
    lines += ["", "![failure classes](plots/failure_classes.png)", "",
              "## Weak environments", ""]
    lines += _table(["rank", "environment", "success", "failed steps", "failing tools"],
                    [(w["rank"], w["env_id"], _pct(w["success"]), w["failed_steps"],
                      ", ".join(list(w["failed_tools"])[:4])) for w in diagnosis["weak_envs"]])
    lines += ["", "## Weak abilities (tool families)", ""]
    lines += _table(["rank", "family", "calls", "failed", "error rate", "codes"],
                    [(a["rank"], a["family"] + "_*", a["steps"], a["failed_steps"],
                      _pct(a["step_error_rate"]), ", ".join(a["error_codes"]))
                     for a in diagnosis["weak_abilities"]])
    lines += ["", "## By top-level category", ""]
    lines += _table(["category", "episodes", "success", "failed steps"],
                    [(k, g["episodes"], _pct(g["success"]), g["failed_steps"])
                     for k, g in diagnosis["by"]["l1"].items()])
    lines += ["", "## By error code", ""]
    lines += _table(["code", "steps"], [(k, g["steps"]) for k, g in
                                        diagnosis["by"]["error_code"].items()])
    lines += ["", "## Guidelines", ""] + [f"- {n}" for n in guidelines["notes"]]
    lines += ["", f"Focus families: {', '.join(guidelines['focus_families']) or 'none'}. "
              f"Training tasks: {metrics['train_tasks']} "
              f"({_pct(metrics['train_focus_share'])} touch a focus family, against "
              f"{_pct(metrics['eval_focus_share'])} of the evaluation tasks)."]
    return "\n".join(lines) + "\n"


def round_plots(round_dir: Path, diagnosis: Mapping[str, Any]) -> None:
    by_l1 = diagnosis["by"]["l1"]
    grouped_bars(round_dir / "plots" / "success_by_category.png", list(by_l1),
                 {"success": [g["success"] for g in by_l1.values()]},
                 title="success by top-level category", ylabel="success",
                 xlabel="top-level category")
    classes = diagnosis["by"]["class"]
    total = max(1, sum(g["episodes"] for g in classes.values()))
    grouped_bars(round_dir / "plots" / "failure_classes.png", list(classes),
                 {"share": [g["episodes"] / total for g in classes.values()]},
                 title="failure classes", ylabel="share of failed episodes",
                 xlabel="failure class")


def summary_table(rounds: Sequence[Mapping[str, Any]]) -> str:
    """One line per finished round (what ``agentworld evolve report`` prints first)."""
    rows = [f"{'round':>5}  {'policy':<34} {'tasks':>5} {'success':>8} {'credit':>7} "
            f"{'weakest env':<36} {'weakest ability':<16} {'train':>5} {'focus%':>6} "
            f"{'recheck':>8} {'panel':>6} {'curriculum':<10}"]
    for m in rounds:
        weak_env = m["weak_envs"][0]["env_id"] if m["weak_envs"] else "-"
        ability = m["weak_abilities"][0]["family"] + "_*" if m["weak_abilities"] else "-"
        rows.append(f"{m['round']:>5}  {m['policy'][-34:]:<34} {m['eval_tasks']:>5} "
                    f"{_pct(m['success']):>8} {m['partial_credit']:>7.3f} {weak_env[:36]:<36} "
                    f"{ability:<16} {m['train_tasks']:>5} {_pct(m['train_focus_share']):>6} "
                    f"{_pct(m.get('recheck_success')):>8} {_pct(m.get('panel_success')):>6} "
                    f"{m.get('curriculum', '-'):<10}")
    return "\n".join(rows)


def write_summary(run_dir: Path, rounds: Sequence[Mapping[str, Any]]) -> Path:
    """``summary.md`` and ``plots/`` at the top of the run directory."""
    plots = run_dir / "plots"
    grouped_bars(plots / "success_per_round.png", [f"round {m['round']}" for m in rounds],
                 {"fixed panel (same tasks every round)": [m.get("panel_success")
                                                           for m in rounds],
                  "fresh tasks": [m["success"] for m in rounds],
                  "fresh tasks, partial credit": [m["partial_credit"] for m in rounds]},
                 title="success per round, before the round's training",
                 ylabel="share of tasks")
    cats = sorted({c for m in rounds for c in m["by_l1"]})
    grouped_bars(plots / "success_by_category.png", cats,
                 {f"round {m['round']}": [m["by_l1"].get(c, {}).get("success", 0.0)
                                          for c in cats] for m in rounds},
                 title="success per top-level category and round", ylabel="success",
                 xlabel="top-level category")
    weak = [(m["round"], w) for m in rounds for w in m["weak_env_recheck"]]
    grouped_bars(plots / "weak_envs.png", [f"r{r} {w['env_id']}" for r, w in weak],
                 {"before training": [w["before"] for _, w in weak],
                  "after training": [w["after"] for _, w in weak]},
                 title="weak environments: success before and after the round's training",
                 ylabel="success", xlabel="round and environment")
    lines = ["# Self-evolution run", "", "```", summary_table(rounds), "```", "",
             "![success per round](plots/success_per_round.png)", "",
             "The fixed panel is the same tasks every round, played with the policy each "
             "round starts with; the fresh tasks are new every round.", "",
             "## Success per top-level category", ""]
    lines += _table(["category"] + [f"round {m['round']}" for m in rounds],
                    [[c] + [_pct(m["by_l1"].get(c, {}).get("success")) for m in rounds]
                     for c in cats])
    lines += ["", "![per category](plots/success_by_category.png)", "",
              "## Weak environments (fresh held-out tasks before and after training)", ""]
    lines += _table(["round", "rank", "environment", "before", "after"],
                    [(r, w["rank"], w["env_id"], _pct(w["before"]), _pct(w["after"]))
                     for r, w in weak])
    lines += ["", "![weak environments](plots/weak_envs.png)"]
    path = run_dir / "summary.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path

"""The self-evolution loop. Each round: sample environments evenly across the taxonomy,
synthesize fresh evaluation tasks, play the current policy, diagnose, make the weakest
environments' databases richer, synthesize targeted training tasks, train, record.

Everything a round produces is written under ``RUN_DIR/round-NNN/``; ``done.json`` is written
last, so a run resumes after the last finished round (an unfinished round is redone: it is
deterministic).
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentworld.servers.taskgen.record import TaskRecord

from .diagnosis import Diagnosis, EnvFacts, diagnose
from .guidelines import focus_of, write_guidelines
from .policies import make_arena_policy
from .records import (
    ArenaConfig,
    EpisodeRecord,
    read_json,
    read_jsonl,
    write_json,
    write_jsonl,
)
from .report import round_markdown, round_plots, write_summary
from .rollout import play_all
from .synthesis import Focus, family_share, synthesize
from .trainers import ArenaTrainer, make_trainer
from .world import ArenaWorld, stratified_sample

__all__ = ["Arena", "RunState", "task_refs", "load_rounds"]


@dataclass
class RunState:
    """What carries from one round to the next (rebuilt from the run directory on resume)."""

    policy: str
    train_prompts: set[str]
    levels: dict[str, int]             # base env id -> how many times it was made richer
    finished: int = 0


def task_refs(world: ArenaWorld, records: Sequence[TaskRecord], *,
              tool_view: str = "full") -> list[Any]:
    """The trainer's :class:`~agentworld.trainer.tasks.TaskRef` for each record, showing its
    tools in ``tool_view`` (the relevance order is the one the hub's reset info gives)."""
    from agentworld.servers.tool_views import apply_view, relevant_tool_names
    from agentworld.trainer.tasks import TaskRef

    out = []
    for r in records:
        env = world.load(r.env_id)
        tools = env.tool_list()
        order = tuple(relevant_tool_names(tools, prompt=r.prompt,
                                          used=[n for n, _ in r.reference_calls]))
        shown = tuple(t["name"] for t in apply_view(tools, tool_view, relevant=order))
        out.append(TaskRef(env_id=r.env_id, task_id=r.id, prompt=r.prompt,
                           env_title=env.manifest.title, category=env.manifest.taxonomy.l1,
                           tool_names=shown, split=r.split,
                           reference_calls=tuple((n, dict(a)) for n, a in r.reference_calls),
                           reference_answer=r.reference_answer, max_steps=r.max_steps,
                           metadata=dict(r.metadata), tool_view=tool_view,
                           relevant_tools=order))
    return out


def env_facts(world: ArenaWorld, env_ids: Sequence[str]) -> dict[str, EnvFacts]:
    out = {}
    for env_id in env_ids:
        env = world.load(env_id)
        out[env_id] = EnvFacts(tool_kinds={t.name: t.kind for t in env.tools},
                               rules=[{"id": r.id, "code": r.code, "tools": list(r.tools)}
                                      for r in env.manifest.rules])
    return out


def _rate_of(episodes: Sequence[EpisodeRecord], name: str) -> dict[str, Any]:
    n = len(episodes)
    return {f"{name}_tasks": n,
            f"{name}_success": round(sum(e.passed for e in episodes) / n, 4) if n else None,
            f"{name}_partial_credit": (round(sum(e.reward for e in episodes) / n, 4)
                                       if n else None)}


def load_rounds(run_dir: Path) -> list[dict[str, Any]]:
    """The metrics of every finished round, in order."""
    return [read_json(d / "metrics.json") for d in sorted(Path(run_dir).glob("round-*"))
            if (d / "done.json").exists()]


class Arena:
    """Runs (and resumes) the self-evolution loop into ``run_dir``."""

    def __init__(self, run_dir: str | Path, config: ArenaConfig, *,
                 world: ArenaWorld | None = None, trainer: ArenaTrainer | None = None,
                 log: Callable[[str], None] | None = None) -> None:
        self.run_dir = Path(run_dir)
        self.config = self._config(config)
        self.world = world or ArenaWorld()
        self.trainer = trainer or make_trainer(self.config.trainer, steps=self.config.train_steps,
                                               sft_epochs=self.config.sft_epochs,
                                               max_tokens=self.config.grpo_max_tokens)
        self.log = log or (lambda message: None)

    def _config(self, config: ArenaConfig) -> ArenaConfig:
        path = self.run_dir / "config.json"
        if path.exists():
            # A resumed run keeps its configuration; only the number of rounds may change.
            stored = read_json(path)
            config = ArenaConfig.from_dict({**stored, "rounds": config.rounds})
        write_json(path, config.to_dict())
        return config

    # -- state -------------------------------------------------------------------------------------
    def state(self) -> RunState:
        state = RunState(policy=self.config.policy, train_prompts=set(), levels={})
        for d in sorted(self.run_dir.glob("round-*")):
            if not (d / "done.json").exists():
                break
            state.policy = read_json(d / "training.json")["policy_after"]
            state.train_prompts |= {r["prompt"] for r in read_jsonl(d / "train_tasks.jsonl")}
            for v in read_json(d / "variants.json"):
                state.levels[v["base_id"]] = v["level"]
            state.finished = int(read_json(d / "done.json")["round"])
        return state

    def run(self) -> list[dict[str, Any]]:
        """Run the rounds not finished yet; returns every finished round's metrics."""
        state = self.state()
        for index in range(state.finished + 1, self.config.rounds + 1):
            self.log(f"round {index}: policy {state.policy}")
            self.run_round(index, state)
        rounds = load_rounds(self.run_dir)
        if rounds:
            write_summary(self.run_dir, rounds)
        return rounds

    # -- one round ---------------------------------------------------------------------------------
    def _rng(self, *parts: Any) -> random.Random:
        return random.Random(":".join(["arena", str(self.config.seed), *map(str, parts)]))

    def _eval_envs(self, index: int) -> list[str]:
        if self.config.envs:
            return list(self.config.envs)
        return stratified_sample(self._rng("sample", index),
                                 per_category=self.config.envs_per_category,
                                 categories=self.config.categories)

    def _synthesize_eval(self, index: int, envs: Sequence[str], exclude: set[str]
                         ) -> list[TaskRecord]:
        records: list[TaskRecord] = []
        for env_id in envs:
            records += synthesize(self.world, env_id, rng=self._rng("eval", index, env_id),
                                  count=self.config.eval_tasks_per_env,
                                  prefix=f"arena-r{index}-eval", split="eval", exclude=exclude,
                                  round_index=index)
        return records

    def _play(self, policy_spec: str, records: Sequence[TaskRecord]) -> list[EpisodeRecord]:
        """Play over HTTP: the configured hub, else one served for this call on a free
        loopback port (the world changes every round, so it is served from this process);
        in-process only when the configuration asks for it."""
        cfg = self.config
        policy = make_arena_policy(policy_spec, max_new_tokens=cfg.max_new_tokens,
                                   seed=cfg.seed, tool_view=cfg.tool_view)
        refs = task_refs(self.world, records, tool_view=cfg.tool_view)
        if cfg.hub_url or cfg.in_process:
            return play_all(policy, self.world, refs, max_steps=cfg.max_steps,
                            hub_url=cfg.hub_url)
        from agentworld.trainer.hub_runner import serve_hub

        with serve_hub(self.world.catalog) as url:
            return play_all(policy, self.world, refs, max_steps=cfg.max_steps, hub_url=url)

    def _panel(self, envs: Sequence[str], exclude: set[str]) -> list[TaskRecord]:
        """The fixed evaluation panel: made once (on round 1's environments) and played every
        round, so rounds can be compared on the same tasks."""
        path = self.run_dir / "panel_tasks.jsonl"
        if path.exists():
            return [TaskRecord.from_dict(r) for r in read_jsonl(path)]
        short = self.config.panel_max_calls
        # A panel within a small policy's reach (short solutions) shows it improving; one of
        # multi-step tasks it solves none of stays at 0 whatever training does.
        focus = Focus(max_calls=short, long=False) if short else None
        records: list[TaskRecord] = []
        for env_id in envs:
            records += synthesize(self.world, env_id, rng=self._rng("panel", env_id),
                                  count=self.config.panel_tasks_per_env, prefix="arena-panel",
                                  split="test", exclude=exclude | {r.prompt for r in records},
                                  focus=focus, round_index=0)
        write_jsonl(path, (r.to_dict() for r in records))
        return records

    def _diagnose(self, episodes: Sequence[EpisodeRecord], envs: Sequence[str], index: int
                  ) -> tuple[Diagnosis, dict[str, Any]]:
        facts = env_facts(self.world, envs)
        diagnosis = diagnose(episodes, facts)
        guidelines = write_guidelines(diagnosis, episodes, facts, weak_envs=self.config.weak_envs,
                                      complexify=self.config.complexify, round_index=index,
                                      easy_below=self.config.easy_below)
        if self.config.analyzer == "llm" and self.config.analyzer_endpoint:
            from .llm_analyzer import analyze_with_llm, merge_llm

            analysis = analyze_with_llm(diagnosis, episodes,
                                        endpoint=self.config.analyzer_endpoint,
                                        model=self.config.analyzer_model or "default")
            diagnosis.analyzer = "rules+llm"
            guidelines = merge_llm(guidelines, analysis, facts)
        return diagnosis, guidelines

    def _variants(self, guidelines: dict[str, Any], state: RunState) -> list[dict[str, Any]]:
        out = []
        for g in guidelines["envs"]:
            if not g["complexify"]:
                continue
            level = state.levels.get(g["env_id"], 0) + 1
            variant = self.world.make_variant(g["env_id"], level=level,
                                              factor=self.config.complexity_factor,
                                              reason="; ".join(g["reasons"]))
            state.levels[g["env_id"]] = level
            g["variant"] = variant.env_id
            out.append(variant.to_dict())
        return out

    def _synthesize_train(self, index: int, guidelines: dict[str, Any], exclude: set[str]
                          ) -> list[TaskRecord]:
        records: list[TaskRecord] = []
        n = self.config.train_tasks_per_env
        for g in guidelines["envs"]:
            focus = focus_of(g)
            targets = [(g["env_id"], n - n // 2), (g["variant"], n // 2)] if g.get("variant") \
                else [(g["env_id"], n)]
            for env_id, count in targets:
                made = synthesize(self.world, env_id, rng=self._rng("train", index, env_id),
                                  count=count, prefix=f"arena-r{index}-train", split="train",
                                  exclude=exclude, focus=focus, round_index=index)
                exclude |= {r.prompt for r in made}
                records += made
        return records

    def _recheck(self, index: int, guidelines: dict[str, Any], exclude: set[str]
                 ) -> list[TaskRecord]:
        records: list[TaskRecord] = []
        for g in guidelines["envs"]:
            records += synthesize(self.world, g["env_id"], rng=self._rng("recheck", index,
                                                                        g["env_id"]),
                                  count=self.config.recheck_tasks_per_env,
                                  prefix=f"arena-r{index}-recheck", split="test",
                                  exclude=exclude, focus=focus_of(g), round_index=index)
        return records

    def run_round(self, index: int, state: RunState) -> dict[str, Any]:
        rd = self.run_dir / f"round-{index:03d}"
        if rd.exists():
            shutil.rmtree(rd)       # an unfinished round: redo it whole
        rd.mkdir(parents=True)
        envs = self._eval_envs(index)
        panel = self._panel(self._eval_envs(1), set(state.train_prompts))
        self.world.publish(panel)
        panel_prompts = {r.prompt for r in panel}
        eval_tasks = self._synthesize_eval(index, envs, state.train_prompts | panel_prompts)
        self.world.publish(eval_tasks)
        write_jsonl(rd / "eval_tasks.jsonl", (r.to_dict() for r in eval_tasks))
        self.log(f"  {len(eval_tasks)} fresh evaluation tasks on {len(envs)} environments")
        episodes = self._play(state.policy, eval_tasks)
        write_jsonl(rd / "trajectories.jsonl", (e.to_dict() for e in episodes))
        panel_episodes = self._play(state.policy, panel)
        write_jsonl(rd / "panel_trajectories.jsonl", (e.to_dict() for e in panel_episodes))
        diagnosis, guidelines = self._diagnose(episodes, envs, index)
        variants = self._variants(guidelines, state)
        write_json(rd / "variants.json", variants)
        write_json(rd / "diagnosis.json", diagnosis.to_dict())
        write_json(rd / "guidelines.json", guidelines)
        taken = state.train_prompts | {r.prompt for r in eval_tasks} | panel_prompts
        train_tasks = self._synthesize_train(index, guidelines, taken)
        recheck = self._recheck(index, guidelines, taken)
        self.world.publish(train_tasks + recheck)
        write_jsonl(rd / "train_tasks.jsonl", (r.to_dict() for r in train_tasks))
        write_jsonl(rd / "recheck_tasks.jsonl", (r.to_dict() for r in recheck))
        self.log(f"  success {diagnosis.overall['success']:.0%}; {len(train_tasks)} targeted "
                 f"training tasks on {len(guidelines['envs'])} weak environments")
        before = self._play(state.policy, recheck)
        view = guidelines.get("train_tool_view") or self.config.tool_view
        outcome = self.trainer.train(world=self.world,
                                     tasks=task_refs(self.world, train_tasks, tool_view=view),
                                     policy=state.policy, round_dir=rd)
        after = self._play(outcome.policy, recheck)
        write_jsonl(rd / "recheck_trajectories.jsonl",
                    ({"phase": phase, **e.to_dict()} for phase, eps in
                     (("before", before), ("after", after)) for e in eps))
        write_json(rd / "training.json", {"policy_before": state.policy,
                                          "policy_after": outcome.policy, **outcome.report})
        metrics = self._metrics(index, state.policy, diagnosis, guidelines, eval_tasks,
                                train_tasks, variants, before, after)
        metrics.update(_rate_of(panel_episodes, "panel"),
                       curriculum=guidelines.get("curriculum", "targeted"))
        write_json(rd / "metrics.json", metrics)
        round_plots(rd, diagnosis.to_dict())
        (rd / "diagnosis.md").write_text(round_markdown(index, diagnosis.to_dict(), guidelines,
                                                        metrics), encoding="utf-8")
        state.policy = outcome.policy
        state.train_prompts |= {r.prompt for r in train_tasks}
        state.finished = index
        write_json(rd / "done.json", {"round": index})
        return metrics

    def _metrics(self, index, policy, diagnosis: Diagnosis, guidelines, eval_tasks, train_tasks,
                 variants, before, after) -> dict[str, Any]:
        prefixes = [f"{f}_" for f in guidelines["focus_families"]]

        def success(eps, env_id):
            mine = [e for e in eps if e.env_id == env_id]
            return round(sum(e.passed for e in mine) / len(mine), 4) if mine else None
        recheck = [{"env_id": g["env_id"], "rank": g["rank"], "before": success(before,
                                                                                g["env_id"]),
                    "after": success(after, g["env_id"])} for g in guidelines["envs"]]
        train_envs: dict[str, int] = {}
        for r in train_tasks:
            base = self.world.base_of(r.env_id)
            train_envs[base] = train_envs.get(base, 0) + 1
        every = [*before, *after]
        return {
            "round": index, "policy": policy, "eval_tasks": len(eval_tasks),
            "eval_envs": len({r.env_id for r in eval_tasks}),
            "success": diagnosis.overall["success"],
            "partial_credit": diagnosis.overall["partial_credit"],
            "by_l1": {k: {"success": g["success"], "episodes": g["episodes"]}
                      for k, g in diagnosis.by["l1"].items()},
            "by_env": {k: {"success": g["success"], "episodes": g["episodes"]}
                       for k, g in diagnosis.by["env"].items()},
            "classes": {k: g["episodes"] for k, g in diagnosis.by["class"].items()},
            "weak_envs": [{k: w[k] for k in ("rank", "env_id", "success", "failed_steps",
                                             "weakness", "failed_tools")}
                          for w in diagnosis.weak_envs],
            "weak_abilities": [{k: a[k] for k in ("rank", "family", "steps", "failed_steps",
                                                  "step_error_rate")}
                               for a in diagnosis.weak_abilities],
            "focus_families": guidelines["focus_families"],
            "train_tasks": len(train_tasks), "train_envs": train_envs,
            "train_focus_share": round(family_share(train_tasks, prefixes), 4),
            "eval_focus_share": round(family_share(eval_tasks, prefixes), 4),
            "train_mean_calls": round(sum(len(r.reference_calls) for r in train_tasks)
                                      / max(1, len(train_tasks)), 2),
            "eval_mean_calls": round(sum(len(r.reference_calls) for r in eval_tasks)
                                     / max(1, len(eval_tasks)), 2),
            "variants": [v["env_id"] for v in variants],
            "weak_env_recheck": recheck,
            "recheck_success": (round(sum(e.passed for e in after) / len(after), 4)
                                if after else None),
            "recheck_before": (round(sum(e.passed for e in before) / len(before), 4)
                               if before else None),
            "recheck_episodes": len(every) // 2,
        }

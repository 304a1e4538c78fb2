"""The verifier audit over generated task sets: the tasks generation keeps hold up against
variants the generator never drew (seed 1; generation gates with seed 0)."""

from __future__ import annotations

import statistics

import pytest

from agentworld.servers import default_catalog
from agentworld.servers.taskgen.audit import audit_task, summarize
from agentworld.servers.taskgen.generate import generate_tasks
from agentworld.servers.taskgen.run import reference_records
from agentworld.servers.world.registry import compiled, pack_cards, world_summaries


def _one_per_l2() -> list[str]:
    seen: dict[str, str] = {}
    for summary in world_summaries():
        seen.setdefault(summary["taxonomy"]["l2"], summary["id"])
    return list(seen.values())


def _generate_and_audit(env_ids: list[str], per_env: int = 12):
    catalog = default_catalog()
    audits, records = [], []
    for env_id in env_ids:
        env = catalog.load(env_id)
        world = env_id not in ("notion", "github", "airline")
        kept, _ = generate_tasks(env, compiled=compiled(env_id) if world else None,
                                 per_env=per_env, existing=reference_records(env_id))
        records += kept
        audits += [audit_task(env, r, seed=1) for r in kept]
    return summarize(audits), records


def _assert_trustworthy(report) -> None:
    assert report["equivalent"]["false_negatives"] == 0, report["false_negative_tasks"]
    assert report["near_miss"]["rate"] <= 0.005, report["false_positive_tasks"]
    assert not report["answer_in_prompt"] and not report["unspecified_step"], report
    assert not report["redundant_step"], report["redundant_step"]
    assert not report["reference_failed"]


def _first_of_kind(kind: str, skip: int = 0) -> str:
    return [s["id"] for s in world_summaries() if s["kind"] == kind][skip]


def test_generated_tasks_of_a_mined_and_a_domain_pack_environment_pass_a_fresh_audit():
    mined, pack = _first_of_kind("mined", 3), sorted(pack_cards())[27]
    report, records = _generate_and_audit([mined, pack], per_env=6)
    assert report["tasks"] >= 10 and report["near_miss"]["variants"] >= 40
    assert report["near_miss"]["false_positives"] == 0, report["false_positive_tasks"]
    _assert_trustworthy(report)
    kinds = {env: {r.kind for r in records if r.env_id == env} for env in (mined, pack)}
    # Both get programmatic requests (a mined surface's from its bindings) and graph tasks.
    assert kinds[pack] == {"graph", "programmatic"} and "programmatic" in kinds[mined]
    assert any("/mined-" in r.id for r in records if r.env_id == mined)


@pytest.mark.slow
def test_the_reference_environments_and_one_per_second_level_category():
    report, records = _generate_and_audit(["notion", "github", "airline", *_one_per_l2()])
    _assert_trustworthy(report)
    shapes = {r.metadata.get("template") for r in records if r.kind == "programmatic"}
    assert len(shapes) >= 12
    long = [r for r in records if r.split == "long_horizon"]
    assert statistics.mean(len({n for n, _ in r.reference_calls}) for r in long) >= 4

"""The data audit on real world environments: through the runner, the pipeline's fourth filter
and ``agentworld world audit --data``."""

from __future__ import annotations

import json

from agentworld.cli import main
from agentworld.servers.world.data_audit import RULES, audit_env, audit_envs, subject_for
from agentworld.servers.world.filters import run_filters
from agentworld.servers.world.registry import compiled, world_ids


def _some_ids(n: int) -> list[str]:
    ids = world_ids()
    return [ids[i * len(ids) // n] for i in range(n)]


def test_audit_env_names_the_environment_a_table_a_row_and_a_known_rule():
    env_id = _some_ids(1)[0]
    tables = set(subject_for(compiled(env_id)).tables) | {"tools"}
    for f in audit_env(env_id):
        assert f.env_id == env_id and f.rule in RULES and f.rule != "audit_error", f
        assert f.table in tables and f.row and f.message


def test_pool_and_in_process_runs_agree():
    ids = _some_ids(2)
    pooled = audit_envs(ids, workers=2, progress=False, keep=5)
    alone = audit_envs(ids, workers=1, progress=False, keep=5)
    assert [e.env_id for e in pooled.envs] == ids
    assert pooled.counts == alone.counts
    assert pooled.findings == alone.findings
    assert pooled.total == sum(len(audit_env(i)) for i in ids)


def test_filters_record_the_data_audit_as_a_fourth_filter():
    env_id = _some_ids(3)[2]
    report = run_filters(compiled(env_id)).to_dict()
    expected = {}
    for f in audit_env(env_id):
        expected[f.rule] = expected.get(f.rule, 0) + 1
    assert report["data_findings"] == expected
    assert report["data"] == (not expected)


def test_cli_audit_prints_json_and_exits_non_zero_on_findings(capsys):
    env_id = _some_ids(1)[0]
    rc = main(["world", "audit", "--data", env_id, "--json", "--quiet", "--workers", "1",
               "--limit", "3"])
    out = json.loads(capsys.readouterr().out)
    assert out["environments"] == 1
    assert out["findings"] == sum(out["counts"].values()) == len(audit_env(env_id))
    assert len(out["first_findings"]) == min(3, out["findings"])
    assert rc == (1 if out["findings"] else 0)


def test_cli_audit_table_lists_rules_and_findings(capsys):
    env_id = _some_ids(1)[0]
    rc = main(["world", "audit", "--data", env_id, "--quiet", "--workers", "1"])
    text = capsys.readouterr().out
    assert text.splitlines()[0].split()[:3] == ["rule", "findings", "envs"]
    assert "of 1 environments" in text
    assert rc in (0, 1) and (rc == 1) == ("first " in text)


def test_cli_audit_refuses_bad_input(capsys):
    assert main(["world", "audit", "--data", "no-such-environment"]) == 2
    assert "not synthesized environments: no-such-environment" in capsys.readouterr().out
    assert main(["world", "audit", _some_ids(1)[0]]) == 2
    assert "--data" in capsys.readouterr().out
    assert main(["world", "audit", "--data"]) == 2

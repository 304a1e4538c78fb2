"""The world and task commands, end to end on a temporary cache."""

import json

import pytest

from agentworld.cli import main


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("AGENTWORLD_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_catalog_stats_reports_the_world(capsys):
    assert main(["catalog", "stats"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["environments"] == 1978
    assert stats["levels"] == {"l1": 20, "l2": 50, "l3": 1978}
    assert stats["unique_identities"] is True
    assert main(["catalog", "stats", "--markdown"]) == 0
    assert "| category | environments |" in capsys.readouterr().out


def test_build_caches_templates(cache, capsys):
    assert main(["build", "hotel-chain-reservations", "--quiet", "--workers", "1"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["environments"] == 1
    cached = list((cache / "templates").glob("hotel-chain-reservations-*.sqlite"))
    assert len(cached) == 1 and cached[0].stat().st_size > 10_000
    assert main(["build", "no-such-env"]) == 2


def test_tasks_generate_stats_export(cache, capsys, tmp_path):
    env_id = "hotel-chain-reservations"
    assert main(["tasks", "generate", env_id, "--quiet", "--workers", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["generated"] == 1
    # Resumable: a second run finds the set already there.
    assert main(["tasks", "generate", env_id, "--quiet", "--workers", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["already_done"] == 1
    assert main(["tasks", "stats", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["environments"] == 1 and stats["min_per_env"] >= 10
    assert stats["long_horizon"]["mean_reference_calls"] >= 15
    out = tmp_path / "export"
    assert main(["tasks", "export", "--format", "jsonl", "--out", str(out)]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert sum(rows.values()) == stats["tasks"]
    assert (out / "train.jsonl").exists()

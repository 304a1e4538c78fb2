"""The OpenRLHF launcher that places the hub on the trainer's Ray cluster: its command.

The launcher itself runs against a real two-node cluster in tests/hub/test_ray_cluster.py."""

from __future__ import annotations

import pytest

from agentworld.trainer.openrlhf_backend import OpenRLHFConfig, build_command
from agentworld.trainer.ray_hub import _parse, with_ray_hub


def test_the_built_command_gets_the_hub_placed_on_the_cluster():
    cmd = build_command(OpenRLHFConfig(model="m", dataset="d", output_dir="o"), rows=8)
    placed = with_ray_hub(cmd, replicas=4, replica_cpus=2.0, max_sessions=256)
    at = placed.index("agentworld.trainer.ray_hub")
    assert placed[:at] == cmd[:at] and placed[at - 1] == "-m"
    assert placed[at + 1:at + 8] == ["--replicas", "4", "--replica-cpus", "2.0",
                                     "--max-sessions", "256", "--"]
    assert placed[at + 8:] == cmd[at + 1:]  # OpenRLHF's flags, unchanged
    args = _parse(placed[at + 1:])
    assert (args.replicas, args.replica_cpus, args.max_sessions) == (4, 2.0, 256)
    assert args.rest == cmd[at + 1:]


def test_bad_commands_and_counts_are_refused():
    cmd = build_command(OpenRLHFConfig(model="m", dataset="d", output_dir="o"), rows=8)
    with pytest.raises(ValueError, match="replicas"):
        with_ray_hub(cmd, replicas=0)
    with pytest.raises(ValueError, match="not an OpenRLHF launcher"):
        with_ray_hub(["python", "-m", "something.else"], replicas=2)


def test_the_launcher_refuses_a_bad_count_before_starting_ray(capsys):
    pytest.importorskip("ray", reason="the launcher needs the 'ray' extra")
    import ray

    from agentworld.trainer.ray_hub import main

    assert main(["--replicas", "0", "--", "--rollout.n_samples_per_prompt", "8"]) == 2
    assert "replicas must be at least 1" in capsys.readouterr().err
    assert not ray.is_initialized()


def test_agentworld_train_places_the_hub_with_hub_replicas(tmp_path, capsys):
    import shlex

    from agentworld.cli import main

    assert main(["train", "--backend", "openrlhf", "--envs", "tests.fixtures.tiny_env:DEFINITION",
                 "--model", "/models/x", "--output", str(tmp_path), "--hub-replicas", "3"]) == 0
    words = shlex.split(capsys.readouterr().out.strip().splitlines()[-1])
    at = words.index("agentworld.trainer.ray_hub")
    assert words[at + 1:at + 3] == ["--replicas", "3"]
    assert "--actor.model_name_or_path" in words[at:]
    assert main(["train", "--backend", "openrlhf", "--envs", "tests.fixtures.tiny_env:DEFINITION",
                 "--model", "/models/x", "--output", str(tmp_path), "--hub-replicas", "-1"]) == 2
    assert "replicas must be at least 1" in capsys.readouterr().err

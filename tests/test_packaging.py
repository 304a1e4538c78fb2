"""The package maps every source folder under one import root, and ships its data files."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).parents[1]
FOLDERS = {"agentworld": "agentworld", "servers": "agentworld.servers", "hub": "agentworld.hub",
           "gym_api": "agentworld.gym_api", "trainer": "agentworld.trainer"}


def _declared() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return set(config["tool"]["setuptools"]["packages"])


def test_every_python_package_is_declared():
    found = set()
    for folder, name in FOLDERS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((name, *rel)))
    missing = found - _declared()
    assert not missing, f"add to pyproject packages: {sorted(missing)}"


def test_no_top_level_module_names_collide():
    assert all(p.startswith("agentworld") for p in _declared())

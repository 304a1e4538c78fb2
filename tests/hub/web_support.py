"""What the browser tests of the web page share: Debian's Chromium driven by Playwright, a hub
on a real uvicorn (127.0.0.1:0) over a catalog whose airline tasks come from the task store,
and an environment full of HTML that must stay text."""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentworld.servers import Catalog, Manifest, Rule
from agentworld.servers.taskgen.generate import GenerationReport
from agentworld.servers.taskgen.run import reference_records
from agentworld.servers.taskgen.store import TaskStore
from agentworld.servers.tasks import Task, Verdict
from tests.fixtures.tiny_env import DEFINITION as TINY

IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
CHROMIUM_CANDIDATES = ("/usr/bin/chromium-headless-shell",
                       "/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium")

# Markup that would run if any view put data into the page as HTML.
PAYLOADS = ('<script>window.__pwned = "script"</script>',
            '<img src=x onerror="window.__pwned = \'img\'">',
            '"><svg onload="window.__pwned = \'svg\'">')
HOSTILE = " ".join(PAYLOADS)


def chromium_path() -> str:
    """The Chromium that Debian packages (``apt-get install chromium-headless-shell``); the test
    module is skipped with the reason when it or Playwright is missing."""
    pytest.importorskip("playwright.sync_api", reason="Playwright is not installed "
                        "(pip install -e '.[web]')")
    for candidate in CHROMIUM_CANDIDATES:
        if Path(candidate).exists():
            return candidate
    found = shutil.which("chromium-headless-shell") or shutil.which("chromium")
    if found:
        return found
    pytest.skip("no Chromium: apt-get install chromium-headless-shell")


@contextlib.contextmanager
def chromium() -> Iterator:
    """One headless Chromium for a test module (starting one takes about a second)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(),
                                             args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


def store_reference_tasks(task_dir: Path, env_id: str = "airline") -> list:
    """The hand-written reference tasks of ``env_id`` put in a task store, as `agentworld tasks
    generate` would leave them (without the generated ones, which take seconds to make)."""
    records = reference_records(env_id)
    TaskStore(task_dir).save(env_id, records, GenerationReport(env_id, kept=len(records)))
    return records


def _hostile_seed(conn) -> None:
    TINY.seed(conn)
    conn.execute("UPDATE lists SET name = ? WHERE id = 'lst_home'", (HOSTILE,))
    conn.execute("UPDATE items SET title = ? WHERE id = 'itm_1'", (HOSTILE,))


def _verify_hostile(run) -> Verdict:
    return Verdict.from_checks({HOSTILE: bool(run.answer)})


def hostile_definition():
    """The tiny to-do environment with markup in its texts, rows, rules and task."""
    manifest: Manifest = dataclasses.replace(
        TINY.manifest, id="xss-probe", title=f"Probe {PAYLOADS[0]}",
        description=f"Descriptions may hold markup: {HOSTILE}",
        rules=(Rule("markup-rule", f"Rules too: {HOSTILE}", ("complete_item",), "CONFLICT"),))
    task = Task(id="xss-probe/markup", env_id="xss-probe", prompt=f"List the items. {HOSTILE}",
                verifier=_verify_hostile, max_steps=5,
                reference_calls=(("list_items", {"list_id": "lst_home"}),))
    return dataclasses.replace(TINY, manifest=manifest, seed=_hostile_seed, tasks=(task,))


def web_catalog(tmp: Path, *, world: bool = False, hostile: bool = True) -> Catalog:
    """The reference environments (airline with its stored tasks), the world when asked, and
    the environment full of markup unless told not to."""
    task_dir = tmp / "tasks"
    store_reference_tasks(task_dir)
    catalog = Catalog(world=world, cache_dir=tmp / "templates", task_dir=task_dir)
    if hostile:
        catalog.add(hostile_definition())
    return catalog

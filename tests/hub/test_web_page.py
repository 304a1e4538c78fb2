"""The web page in a real browser (Debian's Chromium driven by Playwright) against a hub on
127.0.0.1:0 serving the whole world: browse to an environment, play an airline task to a pass
through the page's forms, replay its trajectory from the downloaded file, and read an arena
run's report. Each test leaves a screenshot of its page in docs/images/ for the README."""

from __future__ import annotations

import json
import math
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from agentworld.hub.app import create_app
from agentworld.hub.client import SyncHubClient
from tests.fixtures.live_server import live_server
from tests.hub.web_support import IMAGES, chromium, chromium_path, web_catalog

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")
PAGE_SIZE = 50  # catalog.js


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    chromium_path()  # skip early, before building anything, when there is no browser
    tmp = tmp_path_factory.mktemp("web-page")
    catalog = web_catalog(tmp, world=True, hostile=False)  # the world as `agentworld hub` serves it
    with live_server(create_app(catalog)) as url:
        yield catalog, url


@pytest.fixture(scope="module")
def browser(world):
    with chromium() as browser:
        yield browser


@pytest.fixture
def page(browser, world):
    context = browser.new_context(viewport={"width": 1280, "height": 860}, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield page
    context.close()
    assert errors == [], errors  # the page's scripts never threw


def shot(page, name: str, *, full_page: bool = False) -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(IMAGES / f"web_{name}.png"), full_page=full_page)


def test_browse_the_catalog_to_an_environment(page, world):
    catalog, url = world
    summaries = catalog.summaries()
    page.goto(f"{url}/")
    page.wait_for_selector(".env-card")
    total = len(summaries)
    assert page.text_content("#catalog-count") == f"{total} of {total} environments"
    pages = math.ceil(len(summaries) / PAGE_SIZE)
    assert page.text_content("#page-label").strip() == f"page 1 of {pages}"
    assert page.locator(".env-card").count() == PAGE_SIZE
    page.click("[data-page=next]")
    assert page.text_content("#page-label").strip() == f"page 2 of {pages}"
    assert page.locator(".env-card").first.get_attribute("data-env") == \
        sorted(s["id"] for s in summaries)[PAGE_SIZE]

    # The taxonomy tree counts what the other filters leave, and narrows L1 then L2.
    l1, l2 = "Travel & Transportation", catalog.manifest("airline").taxonomy.l2
    in_l1 = [s for s in summaries if s["taxonomy"]["l1"] == l1]
    tree_l1 = page.locator(f"button[data-l1='{l1}']")
    assert tree_l1.text_content() == f"{l1} ({len(in_l1)})"
    tree_l1.click()
    assert page.text_content("#catalog-count").startswith(f"{len(in_l1)} of ")
    in_l2 = [s for s in in_l1 if s["taxonomy"]["l2"] == l2]
    page.click(f"button[data-l2='{l2}']")
    assert page.locator(".env-card").count() == min(PAGE_SIZE, len(in_l2))
    page.check("input[data-prov=reference]")
    assert [c.get_attribute("data-env") for c in page.locator(".env-card").all()] == ["airline"]
    page.click("text=All categories")
    page.fill("#tools-minTools", "18")
    many = sorted(e for e in ("airline", "github", "notion")
                  if len(catalog.definition(e).tools.names()) >= 18)
    expect(page.locator(".env-card")).to_have_count(len(many))
    assert sorted(c.get_attribute("data-env") for c in page.locator(".env-card").all()) == many
    page.fill("#tools-minTools", "")
    page.uncheck("input[data-prov=reference]")
    # The tool range over the whole world, as the hub counts tools.
    with urllib.request.urlopen(f"{url}/v1/web/catalog") as response:
        counts = [r["tools"] for r in json.load(response)["envs"]]
    page.fill("#tools-minTools", "30")
    page.fill("#tools-maxTools", "40")
    in_range = sum(1 for n in counts if n is not None and 30 <= n <= 40)
    assert 0 < in_range < total
    expect(page.locator("#catalog-count")).to_have_text(f"{in_range} of {total} environments")
    page.fill("#tools-minTools", "")
    page.fill("#tools-maxTools", "")
    page.fill("#search", "meridian airways")
    expect(page.locator(".env-card")).to_have_count(1)
    page.goto(f"{url}/#/")
    page.wait_for_selector(".env-card")
    shot(page, "catalog")

    page.fill("#search", "airline")
    page.click(".env-card[data-env=airline] h3 a")
    page.wait_for_selector("#tasks table")
    page.wait_for_selector("#tables details", state="attached")
    env = catalog.load("airline")
    assert page.text_content("#env-description") == env.manifest.description
    assert page.locator("#tools details.tool").count() == len(env.tools.names())
    flight = page.locator("details.tool[data-tool=get_flight]")
    flight.locator("summary").first.click()
    assert "flight_id" in flight.text_content() and "1–64 chars" in flight.text_content()
    assert env.manifest.rules[0].text in page.text_content("main")
    assert "MIT" in page.text_content("main")  # the airports' licence
    tables = page.locator("#tables details.data-table")
    assert tables.count() == len(env.template.clone().execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
    ).fetchall())
    assert page.locator("#tasks h3").first.text_content().startswith("long_horizon · programmatic")
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "environment")


def _fill(form, name: str, value, schema: dict) -> None:
    field = form.locator(f"[data-param='{name}']")
    prop = schema["properties"][name]
    if "enum" in prop or prop.get("type") == "boolean":
        field.select_option(label=json.dumps(value) if prop.get("type") == "boolean"
                            else str(value))
    elif prop.get("type") == "array":
        field.fill("\n".join(str(v) for v in value))
    else:
        field.fill(str(value))


def test_play_an_airline_task_to_a_pass_and_replay_it(page, world, tmp_path):
    catalog, url = world
    env = catalog.load("airline")
    task = env.task("airline/ref-011")  # a booking: arrays, enums, integers in the forms
    page.goto(f"{url}/#/play/airline?task={task.id}")
    page.click("#start")
    assert page.text_content("#prompt") == task.prompt
    for name, arguments in task.reference_calls:
        page.click(f".tool-list button[data-tool={name}]")
        form = page.locator(f".tool-form[data-tool={name}]")
        for key, value in arguments.items():
            _fill(form, key, value, env.tool(name).input_schema)
        before = page.locator("#log li").count()
        page.click("#call")
        expect(page.locator("#log li")).to_have_count(before + 1)
        assert page.locator("#log li").last.locator(".badge").text_content() == "ok"
    page.fill("#answer", task.reference_answer)
    page.click("#submit")
    page.wait_for_selector("#verdict")
    assert page.get_attribute("#verdict", "data-passed") == "true"
    points = sum(c["points"] for c in task.metadata["rubric"])
    assert f"{points} of {points} points" in page.text_content("#verdict")
    assert page.locator("#verdict tbody tr").count() == len(task.metadata["rubric"])

    # The hub saw exactly these calls in the session the page started.
    sid = page.text_content("#status").split()[1]
    client = SyncHubClient(url)
    state = client.state(sid)
    client.close()
    assert state["verdict"]["passed"] and state["answer"] == task.reference_answer
    assert [s["tool"] for s in state["trajectory"]] == [n for n, _ in task.reference_calls]
    shot(page, "play", full_page=True)

    with page.expect_download() as download:
        page.click("#download")
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    record = json.loads(saved.read_text())
    assert record["passed"] and len(record["steps"]) == len(task.reference_calls)

    page.goto(f"{url}/#/replay")
    page.set_input_files("#trajectory-file", str(saved))
    page.wait_for_selector(".step-view")
    assert page.text_content("#replay-prompt") == task.prompt
    last = len(task.reference_calls)
    for index, (name, arguments) in enumerate(task.reference_calls, start=1):
        assert page.text_content("#step-label") == f"step {index} of {last}"
        view = page.locator(".step-view")
        assert name in view.locator("h3").text_content()
        assert json.loads(view.locator("pre.arguments").text_content()) == arguments
        assert json.loads(view.locator("pre.observation-text").text_content()) == \
            record["steps"][index - 1]["output"]
        page.keyboard.press("ArrowRight")
    assert page.text_content("#step-label") == f"outcome (after {last} steps)"
    assert page.get_attribute("#verdict", "data-passed") == "true"
    page.click("#prev")
    assert page.text_content("#step-label") == f"step {last} of {last}"
    page.click("#first")
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "replay")

    # The same episode, opened from the finished session instead of the file.
    page.goto(f"{url}/#/replay?session={sid}")
    page.wait_for_selector(".step-view")
    page.click("#last")
    assert page.get_attribute("#verdict", "data-passed") == "true"


def test_an_arena_runs_report_and_trajectories(page, world, tmp_path):
    pytest.importorskip("matplotlib")
    from agentworld.trainer.arena import Arena, ArenaConfig
    from agentworld.trainer.arena.records import read_jsonl

    catalog, url = world
    run_dir = tmp_path / "run"
    arena = Arena(run_dir, ArenaConfig(rounds=1, categories=("Travel & Transportation",),
                                       eval_tasks_per_env=2, weak_envs=1, train_tasks_per_env=1,
                                       complexify=0, panel_tasks_per_env=1,
                                       recheck_tasks_per_env=1, in_process=True))
    # In its own thread: the arena runs an event loop, and Playwright's sync API holds this one's.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(arena.run).result()
    page.goto(f"{url}/#/replay")
    page.set_input_files("#run-folder", str(run_dir))
    page.wait_for_selector(".markdown table")
    report = page.locator("#report")
    assert "Self-evolution run" in report.locator("h1").first.text_content()
    assert "Travel & Transportation" in report.locator("table").first.text_content()
    plots = report.locator("img.plot")
    assert plots.count() == 3
    for plot in plots.all():  # decoded from the opened files' blob: URLs
        expect(plot).to_have_js_property("complete", True)
        assert plot.evaluate("img => img.naturalWidth") > 100
    page.evaluate("document.getElementById('report').scrollIntoView()")
    shot(page, "report")
    page.click("button[data-doc='round-001/diagnosis.md']")
    expect(report.locator("h1").first).to_have_text("Round 1: diagnosis (rules)")

    episodes = list(read_jsonl(run_dir / "round-001" / "trajectories.jsonl"))
    page.click("button[data-file='round-001/trajectories.jsonl']")
    page.wait_for_selector("#episodes table")
    assert page.locator("#episodes tbody tr").count() == len(episodes)
    page.click("button[data-episode='0']")
    first = episodes[0]
    assert page.text_content("#replay-prompt") == first["prompt"]
    tools = page.locator(".timeline button").all_text_contents()
    assert [t.rstrip(" ✗") for t in tools[:-1]] == [s["tool"] for s in first["steps"]]
    page.click("#last")
    assert page.get_attribute("#verdict", "data-passed") == str(first["passed"]).lower()


def _js(number: float) -> str:
    """A number as JavaScript writes it (1.0 is "1")."""
    return str(int(number)) if float(number).is_integer() else repr(float(number))


def test_an_eval_report_lists_its_episodes(page, world, tmp_path):
    from agentworld.trainer.evaluate import evaluate_sync
    from agentworld.trainer.policies import make_policy
    from agentworld.trainer.tasks import collect_tasks

    catalog, url = world
    tasks = collect_tasks(catalog, ["airline"])
    with ThreadPoolExecutor(1) as pool:  # evaluate runs its own event loop
        report = pool.submit(evaluate_sync, make_policy("oracle"), tasks, url).result()
    path = tmp_path / "eval.json"
    path.write_text(json.dumps(report.to_dict(), indent=2))  # what `agentworld eval --json` prints
    page.goto(f"{url}/#/replay")
    page.set_input_files("#trajectory-file", str(path))
    rows = page.locator("#episodes tbody tr")
    expect(rows).to_have_count(len(tasks))
    overall = report.overall()
    expect(page.locator("#episodes")).to_contain_text(
        f"success {_js(overall['success'])}, partial credit {_js(overall['partial_credit'])}")
    passed = [r.passed for r in report.results]
    badges = page.locator("#episodes tbody tr td:nth-child(6) .badge").all_text_contents()
    assert badges == ["passed" if p else "failed" for p in passed]
    # A file that is not a trajectory gets a clear message, and what was open stays open.
    page.set_input_files("#trajectory-file", files=[{
        "name": "notes.jsonl", "mimeType": "text/plain", "buffer": b'{"a": 1}\nnot json\n'}])
    expect(page.locator("#replay-status")).to_have_text("line 2 is not JSON")
    expect(rows).to_have_count(len(tasks))
    page.set_input_files("#trajectory-file", files=[{
        "name": "other.json", "mimeType": "application/json", "buffer": b'{"hello": "world"}'}])
    expect(page.locator("#replay-status")).to_contain_text("not a trajectory file")

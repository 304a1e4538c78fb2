"""The web page's catalog on the whole world: what a keystroke in the search box costs in the
browser (the page filters every environment it fetched once, then draws one page of cards and the
taxonomy tree), against the baseline of a page that asks the hub instead: one round trip to the
paged listing (`GET /v1/envs?q=...`) per keystroke, before it has drawn anything. Measured in the
same run on `agentworld hub` with Debian's Chromium (Playwright).

    python bench/web_catalog.py
"""

from __future__ import annotations

import json
import shutil
import time
import urllib.parse
import urllib.request

from _common import hub_process, summary_ms, table, write_result

QUERIES = ["a", "ai", "air", "airl", "airli", "airlin", "airline", "", "b", "bo", "boo", "book",
           "booki", "bookin", "booking", "", "c", "cl", "cli", "clin", "clini", "clinic", ""]
ROUNDS = 3


def _browser(playwright):
    path = shutil.which("chromium-headless-shell") or shutil.which("chromium")
    if path is None:
        raise SystemExit("no Chromium: apt-get install chromium-headless-shell")
    return playwright.chromium.launch(executable_path=path, args=["--no-sandbox"])


def _metrics(cdp) -> dict[str, float]:
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


def _page_costs(base: str) -> dict:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = _browser(playwright)
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        started = time.perf_counter()
        page.goto(base + "/")
        page.wait_for_selector(".env-card")
        first_load = time.perf_counter() - started
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")
        per_keystroke = []
        for _ in range(ROUNDS):
            for query in QUERIES:
                before = _metrics(cdp)
                page.fill("#search", query)
                page.wait_for_timeout(150)  # past the page's 80 ms debounce
                after = _metrics(cdp)
                per_keystroke.append(sum(after[k] - before[k] for k in (
                    "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")))
        nodes = _metrics(cdp)["Nodes"]
        browser.close()
    return {"first_load_s": first_load, "per_keystroke": per_keystroke, "dom_nodes": nodes}


def _server_round_trips(base: str) -> list[float]:
    samples = []
    for _ in range(ROUNDS):
        for query in QUERIES:
            url = f"{base}/v1/envs?limit=50&q={urllib.parse.quote(query)}"
            started = time.perf_counter()
            with urllib.request.urlopen(url) as response:
                json.load(response)
            samples.append(time.perf_counter() - started)
    return samples


def main() -> None:
    with hub_process() as (base, _):
        with urllib.request.urlopen(base + "/v1/web/catalog") as response:
            listing = response.read()
        envs = len(json.loads(listing)["envs"])
        page = _page_costs(base)
        server = _server_round_trips(base)
    in_page, round_trip = summary_ms(page["per_keystroke"]), summary_ms(server)
    table(f"catalog search over {envs} environments, per keystroke",
          ["way", "p50 ms", "p99 ms", "mean ms"],
          [["in the page: filter and draw (script, layout, style)", in_page["p50_ms"],
            in_page["p99_ms"],
            in_page["mean_ms"]],
           ["baseline: GET /v1/envs?q= round trip, nothing drawn", round_trip["p50_ms"],
            round_trip["p99_ms"],
            round_trip["mean_ms"]]])
    ratio = round_trip["p50_ms"] / in_page["p50_ms"] if in_page["p50_ms"] else float("nan")
    print(f"\nbaseline / page at p50: {ratio:.1f}x; listing {len(listing) / 1e3:.0f} kB, "
          f"first page shown in {page['first_load_s']:.2f} s, {page['dom_nodes']:.0f} DOM nodes")
    write_result("web_catalog", {"environments": envs, "listing_bytes": len(listing),
                                 "first_load_s": page["first_load_s"], "in_page": in_page,
                                 "server_round_trip": round_trip, "ratio_p50": ratio,
                                 "dom_nodes": page["dom_nodes"]})


if __name__ == "__main__":
    main()

"""How long one mined environment takes to build on demand, in a fresh process.

Each sampled environment is built in its own new interpreter, as ``gym.make`` or ``agentworld
serve`` would on a fresh machine with an empty template cache: import the package, read the
pinned snapshot's facts, compile the server's surface, and build and seed its SQLite template.
Nothing is downloaded: the facts a build needs ship in the snapshot.

The baseline is a domain-pack environment built the same way in the same run; the table gives
each phase and the ratio to it. ``python bench/mined_build.py [--sample 30] [--largest 5]``
prints the table and writes ``bench/results/mined_build.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile

from _common import PYTHON, child_env, pct, table, write_result

# Runs in the child: one environment from nothing to a seeded template, phase by phase.
_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from agentworld.servers.catalog import Catalog
from agentworld.servers.world import registry
t_import = time.perf_counter()
env_id, cache = sys.argv[1], sys.argv[2]
card = registry.card_for(env_id)
if registry.is_mined(card):
    from agentworld.servers.world.mined.world import snapshot_record
    snapshot_record(registry.mined_entries()[env_id]["package"])
t_facts = time.perf_counter()
registry.compiled(env_id)
t_compile = time.perf_counter()
env = Catalog(world=True, cache_dir=cache).load(env_id)
env.template
t_template = time.perf_counter()
print(json.dumps({"import": t_import - t0, "facts": t_facts - t_import,
                  "compile": t_compile - t_facts, "template": t_template - t_compile,
                  "tools": len(env.tools.names())}))
"""


def build_once(env_id: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as cache:
        out = subprocess.run([PYTHON, "-c", _CHILD, env_id, cache], capture_output=True,
                             text=True, env=child_env(), timeout=300, check=True)
    phases = json.loads(out.stdout.strip().splitlines()[-1])
    phases["build"] = phases["facts"] + phases["compile"] + phases["template"]
    return phases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=30, help="random mined environments")
    parser.add_argument("--largest", type=int, default=5, help="plus the N with most tools")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from agentworld.servers.world.registry import is_mined, pack_cards, world_cards

    mined = {i: c for i, c in world_cards().items() if is_mined(c)}
    from agentworld.servers.world.registry import mined_entries

    entries = mined_entries()
    rng = random.Random(args.seed)
    picked = rng.sample(sorted(mined), min(args.sample, len(mined)))
    largest = sorted(mined, key=lambda i: -entries[i]["tools"])[: args.largest]
    picked += [i for i in largest if i not in picked]
    baseline_id = sorted(pack_cards())[0]

    baseline = build_once(baseline_id)
    rows, results = [], {}
    for env_id in picked:
        phases = build_once(env_id)
        results[env_id] = phases
        print(f"{env_id:40s} tools={phases['tools']:4d} build={phases['build']:.2f}s",
              file=sys.stderr)
    builds = [r["build"] for r in results.values()]
    totals = [r["build"] + r["import"] for r in results.values()]
    for label, key in (("facts (snapshot)", "facts"), ("compile", "compile"),
                       ("template (seeded SQLite)", "template"), ("build", "build"),
                       ("import (not build)", "import")):
        values = [r[key] for r in results.values()]
        rows.append([label, f"{pct(values, 50):.3f}", f"{pct(values, 95):.3f}",
                     f"{max(values):.3f}", f"{baseline[key]:.3f}",
                     f"{pct(values, 50) / max(baseline[key], 1e-9):.2f}"])
    table(f"On-demand build of {len(results)} mined environments, fresh process (s); "
          f"baseline: domain-pack {baseline_id}",
          ["phase", "p50", "p95", "max", "baseline", "p50 / baseline"], rows)
    big = [[i, results[i]["tools"], f"{results[i]['build']:.2f}"] for i in largest]
    table("The largest surfaces", ["environment", "tools", "build (s)"], big)
    write_result("mined_build", {
        "sample": len(results), "seed": args.seed, "baseline": {baseline_id: baseline},
        "build_s": {"p50": pct(builds, 50), "p95": pct(builds, 95), "max": max(builds)},
        "with_import_s": {"p50": pct(totals, 50), "max": max(totals)},
        "over_2s": sorted(i for i, r in results.items() if r["build"] > 2.0),
        "environments": results})


if __name__ == "__main__":
    main()

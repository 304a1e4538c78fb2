"""How often a kept mined tool's compiled meaning contradicts its name: a heuristic audit.

For every server in the mined index, the surface is read into its entity model (no database is
built) and each kept tool's binding is compared with its name's words:

* ``record not in name``: none of the bound table's words is in the tool's name
  (``add_note`` bound to streams);
* ``create of another record``: a create whose table is not the noun the name puts after its
  verb (``add_notes_to_clip`` creating a clip); a suffix verb (``category_create``) is a
  false positive of this check, so its count is an upper bound;
* ``list read as aggregate`` / ``list read as get``: a listing verb compiled to a summary or to
  one record (``list_properties`` reading the most recent property);
* ``and/or in record``: a table named after a conjunction (``or_effect``).

It is a heuristic over English names, for comparing compiler versions, not a proof of
correctness. ``python bench/mined_names.py [--examples 5]`` prints the table and writes
``bench/results/mined_names.json``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
from collections import Counter, defaultdict

from _common import table, write_result

from agentworld.servers.words import singular, words
from agentworld.servers.world.mined.model import build_model
from agentworld.servers.world.mined.parse import _LIST, _STOP
from agentworld.servers.world.mined.world import MINED_INDEX, snapshot_record

CHECKS = ("record not in name", "create of another record", "list read as aggregate",
          "list read as get", "and/or in record")


def flags(tool: str, op: str, entity: str) -> list[str]:
    name = words(tool)
    said = set(name) | {singular(w) for w in name}
    record = entity.split("_")
    head = [singular(w) for w in itertools.takewhile(lambda w: w not in _STOP, name[1:])]
    out = []
    if not set(record) & said:
        out.append("record not in name")
    if op == "create" and head and record[-1] not in head and record[-1] != "user":
        out.append("create of another record")
    if name and name[0] in _LIST and op == "aggregate":
        out.append("list read as aggregate")
    if name and name[0] in _LIST and op == "get":
        out.append("list read as get")
    if {"and", "or"} & set(record):
        out.append("and/or in record")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=5)
    args = parser.parse_args()
    counts: Counter[str] = Counter()
    examples: dict[str, list[str]] = defaultdict(list)
    bindings = servers = 0
    for entry in json.loads(MINED_INDEX.read_text()):
        record = snapshot_record(entry["package"])
        tools = [t for t in record["tools"] if t["name"] not in entry.get("exclude", {})]
        servers += 1
        for b in build_model(record["name"], tools).bindings:
            bindings += 1
            for check in flags(b.tool, b.op, b.entity):
                counts[check] += 1
                examples[check].append(f"{entry['id']}.{b.tool} -> {b.op} {b.entity}")
    rng = random.Random(0)
    rows = [[check, counts[check], f"{100 * counts[check] / max(1, bindings):.2f}%",
             "; ".join(rng.sample(examples[check], min(args.examples, len(examples[check]))))]
            for check in CHECKS]
    table(f"{servers} mined servers, {bindings} kept tools",
          ["check", "tools", "share", "examples"], rows)
    write_result("mined_names", {"servers": servers, "bindings": bindings,
                                 "counts": {c: counts[c] for c in CHECKS}})


if __name__ == "__main__":
    main()

"""Check one archetype module while writing it: compile sample cards and run the three filters.

    python -m agentworld.servers.world.audit lodging
"""

from __future__ import annotations

import importlib
import sys
import time

from .cards import card_for
from .compile import compile_card
from .filters import run_filters
from .taxonomy import TAXONOMY

__all__ = ["audit_module"]


def audit_module(module_name: str, *, samples: int = 3) -> bool:
    category = next(c for c in TAXONOMY if c.module == module_name)
    module = importlib.import_module(f"agentworld.servers.world.archetypes.{module_name}")
    by_id = {a.id: a for a in module.ARCHETYPES}
    ok = True
    ids = [leaf.id for leaf in module.LEAVES]
    if len(ids) != len(set(ids)):
        print("duplicate leaf ids")
        ok = False
    print(f"{category.l1} > {category.l2}: {len(module.LEAVES)} leaves, {len(by_id)} archetypes")
    for archetype in module.ARCHETYPES:
        leaves = [leaf for leaf in module.LEAVES if leaf.archetype == archetype.id]
        if not leaves:
            print(f"  {archetype.id}: no leaf uses it")
            ok = False
            continue
        taken: set[tuple] = set()
        for leaf in leaves[:samples]:
            started = time.perf_counter()
            card = card_for(category, leaf, archetype, taken)
            report = run_filters(compile_card(card, archetype))
            took = time.perf_counter() - started
            status = "PASS" if report.passed else "FAIL"
            print(f"  {status} {card.id} [{archetype.id}; {', '.join(card.features) or '-'}; "
                  f"{card.region}] tools={report.tools} rules={report.rules} rows={report.rows} "
                  f"{took:.2f}s")
            for problem in report.problems:
                print(f"      {problem}")
            ok = ok and report.passed and report.tools >= 10
    unknown = {leaf.archetype for leaf in module.LEAVES} - set(by_id)
    if unknown:
        print(f"  leaves name unknown archetypes: {sorted(unknown)}")
        ok = False
    return ok


if __name__ == "__main__":
    results = [audit_module(name) for name in sys.argv[1:]]
    raise SystemExit(0 if all(results) else 1)

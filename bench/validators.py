"""Tool-schema validation: the runtime's current check against compiled validators.

Every input and output schema of the reference environments and of a seeded sample of the
catalog, each checked on values that should pass (sampled arguments, the real outputs of calling
the tools with them) and values that should not (a required key dropped, a wrong type, an
unknown key). ``jsonschema`` (draft 2020-12) gives the reference verdict. The candidates:

* ``runtime``: what ``servers/runtime.py`` runs (its validator, with whatever fast path it has);
* ``jsonschema``: the plain reference validator, for scale;
* ``fastjsonschema``: code generated from the schema (drafts 4, 6, 7 only);
* ``jsonschema-rs``: a Rust validator, draft 2020-12.

A candidate is exact when every verdict equals the reference's (schemas it cannot compile count
against it). Time is the median per check, valid and invalid values apart.
Run: python bench/validators.py [--sample 40]
"""

from __future__ import annotations

import argparse
import copy
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import table, write_result  # noqa: E402

REFERENCE = ["airline", "github", "notion"]


def _mutations(value: Any, schema: dict) -> list[Any]:
    """Values near ``value`` that a strict validator should refuse."""
    if not isinstance(value, dict):
        return [None, [value]]
    out = [[value], {**value, "zz_unknown_key": 1}]
    for key in schema.get("required", [])[:2]:
        out.append({k: v for k, v in value.items() if k != key})
    for key in list(value)[:3]:
        out.append({**value, key: [{"wrong": "type"}]})
    return out


def cases(env, rng: random.Random) -> list[tuple[dict, Any]]:
    """(schema, value) pairs for every tool of ``env``: sampled inputs, real outputs, mutants."""
    import numpy as np

    from agentworld.gym_api._schema_sampler import Unsupported, sample_value
    from agentworld.servers import Session

    session = Session(env, seed=0)
    np_rng = np.random.default_rng(rng.randrange(2**32))
    out: list[tuple[dict, Any]] = []
    try:
        for spec in env.tools:
            for _ in range(4):
                try:
                    args = sample_value(np_rng, spec.input_schema)
                except (Unsupported, RecursionError, ValueError):
                    continue
                out += [(spec.input_schema, args)]
                out += [(spec.input_schema, m) for m in _mutations(args, spec.input_schema)]
                result = session.call(spec.name, copy.deepcopy(args))
                if result.ok:
                    out += [(spec.output_schema, result.data)]
                    out += [(spec.output_schema, m)
                            for m in _mutations(result.data, spec.output_schema)]
    finally:
        session.close()
    return out


def _compiled(kind: str) -> Callable[[dict], Callable[[Any], bool] | None]:
    """A factory: schema -> is_valid function, or None when the library refuses the schema."""
    if kind == "jsonschema":
        from jsonschema import Draft202012Validator

        return lambda schema: Draft202012Validator(schema).is_valid
    if kind == "fastjsonschema":
        import fastjsonschema

        def build(schema: dict):
            try:
                check = fastjsonschema.compile(schema)
            except Exception:  # its own error types and plain ones for unknown drafts
                return None

            def is_valid(value: Any) -> bool:
                try:
                    check(value)
                    return True
                except fastjsonschema.JsonSchemaException:
                    return False
            return is_valid
        return build
    if kind == "jsonschema-rs":
        import jsonschema_rs

        def build_rs(schema: dict):
            try:
                return jsonschema_rs.Draft202012Validator(schema).is_valid
            except Exception:  # a schema it cannot compile
                return None
        return build_rs
    if kind == "runtime":
        from jsonschema import Draft202012Validator

        from agentworld.servers.runtime import _first_validation_error

        def build_runtime(schema: dict):
            validator = Draft202012Validator(schema)
            return lambda value: _first_validation_error(validator, value) is None
        return build_runtime
    raise ValueError(kind)


def _time(fn: Callable[[Any], bool], value: Any, repeat: int = 20) -> float:
    started = time.perf_counter()
    for _ in range(repeat):
        fn(value)
    return (time.perf_counter() - started) / repeat


def measure(pairs: list[tuple[dict, Any]], kinds: list[str]) -> dict[str, Any]:
    reference = _compiled("jsonschema")
    verdicts = {}
    by_schema: dict[int, dict] = {}
    for schema, _ in pairs:
        by_schema.setdefault(id(schema), schema)
    ref = {key: reference(schema) for key, schema in by_schema.items()}
    verdicts = [ref[id(schema)](value) for schema, value in pairs]
    out: dict[str, Any] = {"checks": len(pairs), "schemas": len(by_schema),
                           "valid": sum(verdicts), "candidates": {}}
    for kind in kinds:
        factory = _compiled(kind)
        started = time.perf_counter()
        built = {key: factory(schema) for key, schema in by_schema.items()}
        compile_s = time.perf_counter() - started
        wrong, refused, t_valid, t_invalid = 0, 0, [], []
        for (schema, value), expected in zip(pairs, verdicts, strict=True):
            fn = built[id(schema)]
            if fn is None:
                refused += 1
                continue
            if fn(value) != expected:
                wrong += 1
            (t_valid if expected else t_invalid).append(_time(fn, value))
        out["candidates"][kind] = {
            "wrong_verdicts": wrong, "refused_checks": refused,
            "refused_schemas": sum(fn is None for fn in built.values()),
            "exact": wrong == 0 and refused == 0, "compile_ms_per_schema":
                compile_s * 1e3 / max(1, len(by_schema)),
            "valid_us": statistics.median(t_valid) * 1e6 if t_valid else float("nan"),
            "invalid_us": statistics.median(t_invalid) * 1e6 if t_invalid else float("nan")}
    return out


def run(sample: int, seed: int = 5,
        kinds: tuple[str, ...] = ("runtime", "jsonschema", "fastjsonschema", "jsonschema-rs")
        ) -> dict[str, Any]:
    from agentworld.servers import default_catalog

    catalog = default_catalog()
    rng = random.Random(seed)
    rest = sorted(set(catalog.ids()) - set(REFERENCE))
    env_ids = REFERENCE + rng.sample(rest, min(sample, len(rest)))
    pairs: list[tuple[dict, Any]] = []
    for env_id in env_ids:
        pairs += cases(catalog.load(env_id).warm(), rng)
    out = measure(pairs, list(kinds))
    out["envs"] = env_ids
    rows = [[kind, c["exact"], c["wrong_verdicts"], c["refused_schemas"], c["valid_us"],
             c["invalid_us"], c["compile_ms_per_schema"]]
            for kind, c in out["candidates"].items()]
    table(f"Schema checks: {out['checks']} values on {out['schemas']} schemas of "
          f"{len(env_ids)} environments ({out['valid']} valid)",
          ["validator", "exact", "wrong verdicts", "schemas refused", "valid us (p50)",
           "invalid us (p50)", "compile ms/schema"], rows)
    write_result("validators", out)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sample", type=int, default=40,
                        help="catalog environments besides the reference ones")
    args = parser.parse_args()
    run(args.sample)

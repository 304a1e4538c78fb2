"""``agentworld import agent-world PATH --verify``: our runtime against the release's harness.

For every tool of every imported environment, one call with valid arguments drawn from the
environment's own data (:mod:`.arguments`) is made twice, each time on a fresh copy of the data:

* through our runtime (a :class:`Session`: the sandboxed worker, the session's clock and ids);
* the way the release's harness runs it (``_release_harness.py``: ``MCP_DB_DIR``, all the
  implementations in one namespace, the return value as is, the real clock), in a throwaway
  sandboxed process.

The report gives the share of calls with identical outcomes (both succeed, both refuse with
the same release code, or both fail) and with identical results, and classifies every
difference (:mod:`.compare`): ``clock`` and ``ids`` are by design; ``value``, ``shape`` and
``outcome`` are not.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .arguments import draw_arguments, load_collections
from .backend import is_refusal, served
from .compare import by_design, differences, summarise

__all__ = ["CallCheck", "VerifyReport", "verify_imported", "run_release_call"]

_HARNESS = str(Path(__file__).with_name("_release_harness.py"))
# Differences agentworld makes on purpose: its clock is the session's, its ids are seeded, its
# sandbox refuses what the harness lets through, and JSON cannot carry NaN.
BY_DESIGN = frozenset({"clock", "ids", "sandbox", "not-json"})
_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TZ": "UTC"}


@dataclass
class CallCheck:
    """One tool, called once both ways."""

    env_id: str
    tool: str
    arguments: dict[str, Any] | None
    ours: str = ""                   # outcome: ok | refused:<code> | failed:<why> | skipped
    release: str = ""
    same_outcome: bool = False
    same_result: bool = False
    differences: list[str] = field(default_factory=list)    # classes, most telling first
    example: str = ""                                        # the first differing path

    @property
    def by_design(self) -> bool:
        """Identical, or different only in ways agentworld chooses (see ``BY_DESIGN``)."""
        return set(self.differences) <= BY_DESIGN


@dataclass
class VerifyReport:
    checks: list[CallCheck] = field(default_factory=list)

    def _made(self) -> list[CallCheck]:
        return [c for c in self.checks if c.ours != "skipped"]

    def figures(self) -> dict[str, Any]:
        made = self._made()
        n = len(made) or 1
        classes = Counter(k for c in made for k in c.differences)
        return {"environments": len({c.env_id for c in self.checks}),
                "tools": len(self.checks), "calls": len(made),
                "skipped": len(self.checks) - len(made),
                "identical_outcomes": round(sum(c.same_outcome for c in made) / n, 4),
                "identical_results": round(sum(c.same_result for c in made) / n, 4),
                "identical_outcomes_apart_from_by_design": round(
                    sum(c.same_outcome or c.by_design for c in made) / n, 4),
                "identical_apart_from_by_design": round(sum(c.by_design for c in made) / n, 4),
                "differences": dict(classes)}

    def to_dict(self) -> dict[str, Any]:
        return {**self.figures(), "checks": [asdict(c) for c in self.checks]}

    def table(self) -> str:
        lines = [f"{'env id':<12} {'tool':<28} {'ours':<22} {'release':<22} differences"]
        for c in self.checks:
            diff = "identical" if c.same_result else ",".join(c.differences)
            lines.append(f"{c.env_id:<12} {c.tool[:28]:<28} {c.ours[:22]:<22} "
                         f"{c.release[:22]:<22} {diff} {c.example}")
        f = self.figures()
        lines.append(
            f"{f['calls']} calls over {f['tools']} tools in {f['environments']} environments "
            f"({f['skipped']} skipped): identical outcomes {f['identical_outcomes']:.1%}, "
            f"identical results {f['identical_results']:.1%}; apart from the differences made "
            f"by design ({', '.join(sorted(BY_DESIGN))}): identical outcomes "
            f"{f['identical_outcomes_apart_from_by_design']:.1%}, identical results "
            f"{f['identical_apart_from_by_design']:.1%}; differences {f['differences']}")
        return "\n".join(lines)


def run_release_call(tools: list[dict[str, Any]], tool: str, arguments: dict[str, Any],
                     data_dir: Path, *, timeout: float = 10.0,
                     python: str | None = None) -> dict[str, Any]:
    """One call the way the release's harness makes it, on a fresh copy of ``data_dir``."""
    home = Path(tempfile.mkdtemp(prefix="aw-harness-"))
    try:
        shutil.copytree(data_dir, home / "database", symlinks=False)
        job = {"tools": [{"name": t["release_name"], "implementation": t["implementation"]}
                         for t in tools], "tool": tool, "args": arguments, "home": str(home)}
        try:
            done = subprocess.run([python or sys.executable, "-I", "-S", _HARNESS],
                                  input=json.dumps(job), capture_output=True, text=True,
                                  timeout=timeout, env=_ENV, cwd=home, start_new_session=True)
        except subprocess.TimeoutExpired:
            return {"status": "timeout"}
        try:
            return json.loads(done.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return {"status": "died", "detail": f"exit status {done.returncode}"}
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _ours_outcome(result) -> tuple[str, Any]:
    if result.ok:
        return "ok", result.data
    details = result.error.get("details") or {}
    if "release_error" in details:
        return f"refused:{details.get('release_code') or 'text'}", details["release_error"]
    if "refused" in details:
        return "failed:sandbox", None
    if result.code == "LIMIT_EXCEEDED":
        return "failed:limit", None
    if "not JSON" in result.error.get("message", ""):
        return "failed:not-json", None
    return f"failed:{result.code}", None


def _release_outcome(reply: dict[str, Any]) -> tuple[str, Any]:
    status = reply.get("status")
    if status == "ok":
        result = reply.get("result")
        if is_refusal(result):
            error = result["error"]
            code = error.get("code") if isinstance(error, dict) else None
            return f"refused:{code or 'text'}", error
        return "ok", served(result)
    if status == "timeout":
        return "failed:limit", None
    return f"failed:{reply.get('detail') or status}", None


# Outcomes that differ on purpose: the sandbox refuses what the harness lets through, and
# values JSON cannot carry (NaN, infinity) are refused rather than served.
OUTCOME_BY_DESIGN = {"failed:sandbox": "sandbox", "failed:not-json": "not-json"}


def _same_outcome(ours: str, release: str) -> bool:
    if ours.startswith("failed") and release.startswith("failed"):
        return ours != "failed:sandbox" or release == "failed:PermissionError"
    return ours == release


def _check(env, doc: dict[str, Any], tool: dict[str, Any], arguments: dict[str, Any] | None,
           data_dir: Path, timeout: float) -> CallCheck:
    from ..runtime import Session

    check = CallCheck(env_id=doc["id"], tool=tool["name"], arguments=arguments)
    if arguments is None:
        check.ours = check.release = "skipped"
        check.differences = ["no arguments from the data"]
        return check
    session = Session(env, seed=0)
    try:
        ours, our_value = _ours_outcome(session.call(tool["name"], arguments))
    finally:
        session.close()
    release, release_value = _release_outcome(
        run_release_call(doc["tools"], tool["release_name"], arguments, data_dir,
                         timeout=timeout))
    check.ours, check.release = ours, release
    check.same_outcome = _same_outcome(ours, release)
    if not check.same_outcome:
        check.differences = [OUTCOME_BY_DESIGN.get(ours, "outcome")]
        return check
    diffs = differences(release_value, our_value)
    check.same_result = not diffs
    check.differences = summarise(diffs)
    check.example = diffs[0][0] if diffs and not by_design(diffs) else ""
    return check


def verify_imported(out: Path, env_ids: list[str] | None = None, *, pool=None) -> VerifyReport:
    """Check every tool of the imported environments in ``out`` (or only ``env_ids``)."""
    from ..catalog import Catalog

    catalog = Catalog(modules={}, import_dirs=[out], sandbox=pool)
    # The harness gets the time our sandbox gives a call, plus its own start-up.
    timeout = (pool.limits.call_timeout if pool is not None else 5.0) + 2.0
    report = VerifyReport()
    try:
        for env_id in env_ids if env_ids is not None else catalog.ids():
            folder = Path(out) / env_id
            doc = json.loads((folder / "environment.json").read_text(encoding="utf-8"))
            env = catalog.load(env_id)
            collections = load_collections(folder / "data")
            for tool in doc["tools"]:
                arguments = draw_arguments(tool["input_schema"], collections)
                report.checks.append(_check(env, doc, tool, arguments, folder / "data",
                                            timeout))
    finally:
        catalog.close()
    return report

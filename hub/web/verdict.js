// A verdict, check by check: what each rubric check earned out of its points.

import { badge, el, table } from "./dom.js";

export function verdictPanel(verdict, checks) {
  if (!verdict) return el("p", { class: "muted" }, "This episode has no task, so nothing was verified.");
  const points = new Map((checks || []).map((c) => [c.name, c]));
  const names = Object.keys(verdict.components || {});
  const rows = names.map((name) => {
    const earned = Number(verdict.components[name]);
    const check = points.get(name);
    const worth = check ? Number(check.points) : null;
    return [
      earned >= 1 ? badge("✓ held", "ok") : earned > 0 ? badge("partly", "warn") : badge("✗ failed", "bad"),
      name,
      check && check.kind ? el("code", null, check.kind) : "—",
      worth === null ? `${Math.round(earned * 100)}%` : `${+(earned * worth).toFixed(2)} / ${worth}`,
    ];
  });
  const total = (checks || []).reduce((s, c) => s + Number(c.points || 0), 0);
  const got = names.reduce((s, n) => s + Number(verdict.components[n]) * Number((points.get(n) || {}).points || 0), 0);
  return el("div", { class: `verdict ${verdict.passed ? "passed" : "failed"}`, id: "verdict", "data-passed": String(!!verdict.passed) },
    el("p", { class: "verdict-line" },
      verdict.passed ? badge("PASSED", "ok big") : badge("FAILED", "bad big"),
      ` reward ${verdict.reward}`,
      verdict.score !== null && verdict.score !== undefined ? ` · score ${verdict.score}` : "",
      total ? ` · ${+got.toFixed(2)} of ${total} points` : ""),
    rows.length ? table(["", "check", "kind", "points"], rows) : el("p", { class: "muted" }, "The verifier reported no checks."));
}

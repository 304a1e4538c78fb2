// The environment page: what it is, where it comes from, its tools, rules, data and tasks.

import { hub } from "./api.js";
import { append, badge, clear, el, message, pretty, section, table } from "./dom.js";
import { parameters, typeLabel } from "./schema.js";

const KNOWN_MANIFEST_KEYS = new Set(["id", "version", "title", "description", "taxonomy", "rules",
  "data_sources", "epoch", "tags", "bookkeeping", "origin", "tools", "content_hash"]);

// The first sentence, cut to one line: the whole description is shown when the tool is opened.
function headline(text) {
  const first = text.split(/(?<=\.)\s|\n/)[0];
  return first.length > 110 ? `${first.slice(0, 110)}…` : first;
}

function toolDetails(tool) {
  const notes = tool.annotations || {};
  const params = parameters(tool.inputSchema);
  return el("details", { class: "tool", "data-tool": tool.name },
    el("summary", null, el("code", null, tool.name), " ",
      notes.readOnlyHint ? badge("read-only", "ok") : badge("writes", "warn"),
      notes.destructiveHint ? badge("destructive", "bad") : null,
      el("span", { class: "muted" }, ` ${headline(tool.description || "")}`)),
    el("p", { class: "pre-line" }, tool.description || ""),
    params.length
      ? table(["parameter", "type", "required", "description"], params.map((p) =>
          [el("code", null, p.name), typeLabel(p.schema), p.required ? "yes" : "", p.schema.description || ""]))
      : el("p", { class: "muted" }, "No parameters."),
    el("details", { class: "schema" }, el("summary", null, "Output schema"),
      el("pre", null, pretty(tool.outputSchema || {}))));
}

function provenancePanel(env) {
  const extra = Object.entries(env).filter(([k, v]) => !KNOWN_MANIFEST_KEYS.has(k) && v !== null && v !== undefined);
  return section("Provenance and licence",
    el("p", null, "Origin: ", badge(env.origin, `prov-${env.origin}`), ` · version ${env.version}`,
      " · content hash ", el("code", null, env.content_hash)),
    (env.data_sources || []).length
      ? table(["data source", "licence", "description"], env.data_sources.map((d) => [d.name, d.licence, d.description]))
      : el("p", { class: "muted" }, "No data sources declared."),
    extra.map(([key, value]) => el("div", null, el("h3", null, key),
      typeof value === "object" ? el("pre", null, pretty(value)) : el("p", null, String(value)))),
    (env.tags || []).length ? el("p", { class: "muted small" }, "Tags: ", env.tags.join(", ")) : null);
}

function rulesPanel(env) {
  const rules = env.rules || [];
  return section(`Business rules (${rules.length})`, rules.length
    ? table(["rule", "text", "tools", "error code"], rules.map((r) =>
        [el("code", null, r.id), r.text, (r.tools || []).join(", "), el("code", null, r.code)]))
    : el("p", { class: "muted" }, "No rules declared."));
}

async function fillTables(holder, envId, alive) {
  try {
    const { tables } = await hub.tables(envId, 5);
    if (!alive()) return;
    append(clear(holder), [el("p", { class: "muted small" },
      "The first rows of each table, read from the database a fresh session starts from."),
      tables.map((t) => el("details", { class: "data-table", open: tables.length <= 4, "data-table": t.name },
        el("summary", null, el("code", null, t.name), el("span", { class: "muted" }, ` ${t.count} rows`)),
        el("div", { class: "scroll" }, table(t.columns, t.rows))))]);
  } catch (err) {
    if (alive()) clear(holder).append(message(`Could not read the tables: ${err.message}`, "error"));
  }
}

export function groupTasks(tasks) {
  const groups = new Map();
  for (const task of tasks) {
    const key = `${task.split} · ${task.kind}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(task);
  }
  return [...groups.entries()].sort((a, b) => a[0].localeCompare(b[0]));
}

async function fillTasks(holder, envId, alive) {
  try {
    const { tasks } = await hub.tasks(envId);
    if (!alive()) return;
    clear(holder);
    if (!tasks.length) {
      holder.append(el("p", { class: "muted" }, "No tasks. You can still play it freely with a seed."));
      return;
    }
    holder.append(el("p", { class: "muted small" }, `${tasks.length} tasks, by split and kind.`));
    for (const [key, group] of groupTasks(tasks)) {
      holder.append(el("h3", null, `${key} (${group.length})`), table(["task", "difficulty", "prompt", "rubric", ""],
        group.map((t) => [el("code", null, t.id), t.difficulty || "—", t.prompt,
          t.checks.length ? `${t.checks.length} checks, ${t.checks.reduce((s, c) => s + Number(c.points || 0), 0)} points` : "—",
          el("a", { class: "button", href: `#/play/${encodeURIComponent(envId)}?task=${encodeURIComponent(t.id)}` }, "Play")])));
    }
  } catch (err) {
    if (alive()) clear(holder).append(message(`Could not list the tasks: ${err.message}`, "error"));
  }
}

export async function renderEnvironment(view, envId, alive) {
  const env = await hub.environment(envId);
  if (!alive()) return;
  const tables = el("div", { id: "tables" }, message("Reading a fresh session's tables…"));
  const tasks = el("div", { id: "tasks" }, message("Listing tasks (a synthesized environment's are generated on first use)…"));
  const tax = env.taxonomy || {};
  clear(view).append(
    el("div", { class: "env-head" },
      el("h1", null, env.title),
      el("p", { class: "muted" }, el("code", null, env.id), " · ", [tax.l1, tax.l2, tax.l3].filter(Boolean).join(" › ")),
      el("p", { class: "lead", id: "env-description" }, env.description),
      el("p", null, el("a", { class: "button primary", id: "play-link", href: `#/play/${encodeURIComponent(env.id)}` }, "Play an episode"))),
    provenancePanel(env),
    section(`Tools (${env.tools.length})`, el("div", { id: "tools" }, env.tools.map(toolDetails))),
    rulesPanel(env),
    section("Data", tables),
    section("Tasks", tasks));
  await Promise.all([fillTables(tables, envId, alive), fillTasks(tasks, envId, alive)]);
}

// The play page: a person plays an episode through the agents' own session API: reset, tool
// calls as steps (from a schema-generated form, or raw JSON exactly as an agent would send it),
// then submit and read the verdict.

import { hub } from "./api.js";
import { badge, clear, download, el, message, pretty, section } from "./dom.js";
import { groupTasks } from "./environment.js";
import { toolForm } from "./schema.js";
import { verdictPanel } from "./verdict.js";

function fillPicker(picker, tasks, chosen) {
  clear(picker).append(el("option", { value: "" }, "No task: explore with a seed"));
  for (const [key, group] of groupTasks(tasks)) {
    picker.append(el("optgroup", { label: key }, group.map((t) => el("option", { value: t.id, selected: t.id === chosen },
      `${t.id} — ${t.prompt.length > 90 ? t.prompt.slice(0, 90) + "…" : t.prompt}`))));
  }
}

function logEntry(index, action, outcome) {
  const info = outcome.info || {};
  const ok = info.malformed ? badge("malformed", "bad") : info.ok === false ? badge(info.error_code || "error", "bad")
    : info.ok === true ? badge("ok", "ok") : badge(outcome.terminated ? "submitted" : "ended", "");
  return el("li", { class: "step", "data-step": String(index) },
    el("div", { class: "step-head" }, el("strong", null, `#${index} `),
      typeof action === "string" ? el("code", null, "raw") : el("code", null, action.name), " ", ok),
    el("details", { class: "call", open: true }, el("summary", null, "call"), el("pre", null, pretty(action))),
    el("details", { class: "observation", open: true }, el("summary", null, "observation"),
      el("pre", { class: "observation-text" }, pretty(outcome.observation))));
}

export async function renderPlay(view, envId, params, alive) {
  const env = await hub.environment(envId);
  if (!alive()) return;
  let tasks = [];
  const picker = el("select", { id: "task-select", "aria-label": "task" }, el("option", { value: "" }, "Listing tasks…"));
  const seed = el("input", { id: "seed", type: "number", min: "0", value: params.get("seed") || "0", class: "narrow" });
  const start = el("button", { type: "button", class: "primary", id: "start", disabled: Boolean(params.get("task")) }, "Start episode");
  const note = el("p", { class: "muted small" }, "The episode runs through the same session API agents use: POST /v1/sessions, then /step.");
  const board = el("div", { id: "board" });
  clear(view).append(
    el("h1", null, "Play ", el("a", { href: `#/env/${encodeURIComponent(env.id)}` }, env.title)),
    section("Episode", el("div", { class: "row" },
      el("label", null, "Task ", picker), el("label", null, " seed ", seed), " ", start), note),
    board);
  start.addEventListener("click", async () => {
    start.disabled = true;
    try {
      const task = picker.value;
      const body = task ? { env_id: env.id, task_id: task } : { env_id: env.id, seed: Number(seed.value || 0) };
      const started = await hub.reset(body);
      if (alive()) playBoard(board, env, started, tasks.find((t) => t.id === task));
    } catch (err) {
      clear(board).append(message(`${err.code}: ${err.message}`, "error"));
    } finally {
      start.disabled = false;
    }
  });
  // A synthesized environment's tasks are generated on first use (seconds): meanwhile a seed
  // can be played, and a task named in the link is waited for.
  try {
    tasks = (await hub.tasks(envId)).tasks;
    if (alive()) fillPicker(picker, tasks, params.get("task") || "");
  } catch (err) {
    if (alive()) fillPicker(picker, [], "");
    note.textContent = `No tasks: ${err.message}`;
  }
  start.disabled = false;
}

function playBoard(board, env, started, task) {
  const sid = started.session_id;
  const tools = started.info.tools || env.tools;
  let steps = 0;
  let over = false;
  const status = el("p", { id: "status", class: "muted" });
  const log = el("ol", { id: "log", class: "log" });
  const result = el("div", { id: "result" });
  const formHolder = el("div", { id: "form-holder" });
  const feedback = el("p", { id: "feedback", class: "message error", hidden: true });
  let current = null;
  const showStatus = () => { status.textContent = `session ${sid} · step ${steps} of ${started.info.max_steps}${over ? " · ended" : ""}`; };

  const send = async (action) => {
    if (over) return;
    feedback.hidden = true;
    try {
      const outcome = await hub.step(sid, action);
      steps += 1;
      log.querySelectorAll("details[open]").forEach((d) => { d.open = false; });  // the newest stays open
      log.append(logEntry(steps, action, outcome));
      log.lastChild.scrollIntoView({ block: "nearest" });
      if (outcome.terminated || outcome.truncated) finish(outcome);
    } catch (err) {
      feedback.hidden = false;
      feedback.textContent = `${err.code}: ${err.message}`;
    }
    showStatus();
  };
  const finish = (outcome) => {
    over = true;
    board.querySelectorAll(".controls button, .controls textarea, .controls input, .controls select").forEach((n) => { n.disabled = true; });
    clear(result).append(section("Verdict",
      outcome.truncated ? message("The step limit ended the episode.", "warn") : null,
      verdictPanel(outcome.info.verdict, task ? task.checks : []),
      el("p", null,
        el("a", { class: "button primary", id: "replay-link", href: `#/replay?session=${encodeURIComponent(sid)}` }, "Replay this episode"), " ",
        el("button", { type: "button", id: "download", on: { click: async () => {
          const record = await hub.trajectory(sid);
          download(`${env.id}-${record.task_id || "free"}.trajectory.json`.replace(/[^\w.-]+/g, "_"), JSON.stringify(record, null, 2));
        } } }, "Download trajectory"))));
  };

  const pick = (tool) => {
    current = { tool, form: toolForm(tool) };
    toolList.querySelectorAll("button").forEach((b) => b.classList.toggle("active", b.dataset.tool === tool.name));
    raw.value = JSON.stringify({ name: tool.name, arguments: {} }, null, 2);
    clear(formHolder).append(el("h3", null, el("code", null, tool.name)),
      el("p", { class: "muted" }, tool.description || ""), current.form.node,
      el("button", { type: "button", class: "primary", id: "call", on: { click: () => {
        const got = current.form.read();
        if (got.error) { feedback.hidden = false; feedback.textContent = got.error; return; }
        send({ name: tool.name, arguments: got.arguments });
      } } }, "Call"));
  };
  const filter = el("input", { type: "search", placeholder: "filter tools", "aria-label": "filter tools",
    on: { input: (e) => toolList.querySelectorAll("li").forEach((li) => { li.hidden = !li.dataset.tool.includes(e.target.value.toLowerCase()); }) } });
  const toolList = el("ul", { class: "tool-list" }, tools.map((tool) => el("li", { "data-tool": tool.name.toLowerCase() },
    el("button", { type: "button", "data-tool": tool.name, on: { click: () => pick(tool) } }, tool.name))));
  const raw = el("textarea", { id: "raw", rows: "6", spellcheck: "false" });
  const answer = el("textarea", { id: "answer", rows: "2", placeholder: "your final answer (may be empty for a task that only changes data)" });

  clear(board).append(
    section("Task", el("p", { class: "prompt", id: "prompt" }, started.observation), status),
    el("div", { class: "play controls" },
      el("aside", { class: "sidebar" }, el("h2", { class: "small-heading" }, `Tools (${tools.length})`), filter, toolList),
      el("div", { class: "main" },
        section("Call a tool", formHolder, feedback,
          el("details", { class: "raw" }, el("summary", null, "Raw JSON action (sent as is, as an agent would)"), raw,
            el("button", { type: "button", id: "send-raw", on: { click: () => send(raw.value) } }, "Send"))),
        section("Submit", answer, el("button", { type: "button", class: "primary", id: "submit",
          on: { click: () => send({ name: "submit", arguments: { answer: answer.value } }) } }, "Submit and verify")))),
    section("Observations", log), result);
  showStatus();
  if (tools.length) pick(tools[0]);
}

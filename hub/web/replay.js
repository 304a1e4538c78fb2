// The trajectory viewer: open a trajectory file, an arena run folder (its report, plots, tables
// and trajectories) or a session, then step through the calls, the observations and the verdict.

import { hub } from "./api.js";
import { badge, clear, el, message, pretty, section, table } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { readTrajectories, verdictOf } from "./trajectories.js";
import { verdictPanel } from "./verdict.js";

export async function renderReplay(view, params, alive) {
  const fileInput = el("input", { type: "file", id: "trajectory-file", accept: ".json,.jsonl,application/json" });
  const folderInput = el("input", { type: "file", id: "run-folder", multiple: true, webkitdirectory: true });
  const sessionInput = el("input", { type: "text", id: "session-id", placeholder: "session id", value: params.get("session") || "" });
  const report = el("div", { id: "report" });
  const list = el("div", { id: "episodes" });
  const viewer = el("div", { id: "episode" });
  const status = el("div", { id: "replay-status" });
  const show = (title, parsed) => {
    clear(status);
    showEpisodes(list, viewer, title, parsed);
  };
  const fail = (err) => clear(status).append(message(err.message, "error"));
  const open = (title, text) => {
    try { show(title, readTrajectories(text)); } catch (err) { fail(err); }
  };

  fileInput.addEventListener("change", async () => {
    const file = fileInput.files[0];
    if (!file) return;
    clear(report);
    open(file.name, await file.text());
  });
  folderInput.addEventListener("change", () => {
    try { openRunFolder([...folderInput.files], report, open); } catch (err) { fail(err); }
  });
  const openSession = async () => {
    const sid = sessionInput.value.trim();
    if (!sid) return;
    try {
      const record = await hub.trajectory(sid);
      if (!alive()) return;
      clear(report);
      open(`session ${sid.slice(0, 8)}…`, JSON.stringify(record));  // one recorded episode opens itself
    } catch (err) { fail(err); }
  };

  clear(view).append(
    el("h1", null, "Trajectories"),
    section("Open",
      el("div", { class: "row" },
        el("label", null, "Trajectory file (.json, .jsonl) ", fileInput)),
      el("div", { class: "row" },
        el("label", null, "Arena run folder (agentworld evolve --out) ", folderInput)),
      el("div", { class: "row" },
        el("label", null, "Session ", sessionInput), " ",
        el("button", { type: "button", id: "open-session", on: { click: openSession } }, "Open")),
      el("p", { class: "muted small" }, "Files are read in this browser; nothing is uploaded.")),
    status, report, list, viewer);
  if (params.get("session")) await openSession();
}

function openRunFolder(files, report, openText) {
  const byPath = new Map();
  for (const file of files) {
    const parts = (file.webkitRelativePath || file.name).split("/");
    byPath.set(parts.length > 1 ? parts.slice(1).join("/") : parts[0], file);
  }
  if (!byPath.has("summary.md") && ![...byPath.keys()].some((k) => k.endsWith("diagnosis.md"))) {
    throw new Error("not an arena run folder: no summary.md or round-NNN/diagnosis.md in it");
  }
  const urls = new Map();
  const resolver = (base) => (src) => {
    const path = [...base.split("/").slice(0, -1), ...src.split("/")].filter((p) => p && p !== ".").join("/");
    const file = byPath.get(path);
    if (!file || !/\.(png|jpe?g|svg|gif)$/i.test(path)) return null;
    if (!urls.has(path)) urls.set(path, URL.createObjectURL(file));
    return urls.get(path);
  };
  const rounds = [...byPath.keys()].filter((k) => /^round-\d+\/diagnosis\.md$/.test(k)).sort();
  const docs = byPath.has("summary.md") ? ["summary.md", ...rounds] : rounds;
  const trajectories = [...byPath.keys()].filter((k) => k.endsWith("trajectories.jsonl")).sort();
  const body = el("div", { class: "report-body" });
  const openDoc = async (path) => {
    tabs.querySelectorAll("button").forEach((b) => b.classList.toggle("active", b.dataset.doc === path));
    clear(body).append(renderMarkdown(await byPath.get(path).text(), resolver(path)));
  };
  const tabs = el("nav", { class: "tabs" }, docs.map((path) => el("button", { type: "button", "data-doc": path,
    on: { click: () => openDoc(path) } }, path === "summary.md" ? "Summary" : path.replace("/diagnosis.md", ""))));
  clear(report).append(section("Arena report", tabs, body,
    el("h3", null, "Trajectories"),
    el("ul", { class: "files" }, trajectories.map((path) => el("li", null, el("button", { type: "button", "data-file": path,
      on: { click: async () => openText(path, await byPath.get(path).text()) } }, path))))));
  if (docs.length) openDoc(docs[0]);
}

function showEpisodes(list, viewer, title, parsed) {
  clear(viewer);
  const { episodes, report } = parsed;
  const rows = episodes.map((ep, i) => [
    String(i + 1), el("code", null, ep.env_id), ep.task_id ? el("code", null, ep.task_id) : "—",
    ep.recorded ? String(ep.steps.length) : `${ep.turns ?? "?"} turns`,
    ep.reward === null ? "—" : String(ep.reward),
    ep.passed === null ? "—" : ep.passed ? badge("passed", "ok") : badge("failed", "bad"),
    ep.recorded ? el("button", { type: "button", "data-episode": String(i), on: { click: () => openEpisode(viewer, ep, i) } }, "Step through")
      : el("span", { class: "muted small" }, ep.error || "no steps recorded"),
  ]);
  const overall = report && report.overall ? el("p", null, `policy ${report.policy}: success ${report.overall.success}, ` +
    `partial credit ${report.overall.partial_credit} over ${report.overall.tasks} tasks`) : null;
  clear(list).append(section(`${title}: ${episodes.length} episode${episodes.length === 1 ? "" : "s"}`, overall,
    report ? el("p", { class: "muted small" }, "agentworld eval reports outcomes only; arena runs and sessions record every step.") : null,
    table(["#", "environment", "task", "steps", "reward", "verdict", ""], rows)));
  if (episodes.length === 1 && episodes[0].recorded) openEpisode(viewer, episodes[0], 0);
}

function stepView(ep, step, index) {
  return el("div", { class: "step-view", "data-step": String(index + 1) },
    el("h3", null, `Step ${index + 1}: `, el("code", null, step.tool), " ",
      step.ok ? badge("ok", "ok") : badge(step.error_code || "error", "bad")),
    el("h4", null, "Arguments"), el("pre", { class: "arguments" }, pretty(step.arguments)),
    el("h4", null, "Observation"), el("pre", { class: "observation-text" },
      step.output === undefined ? "(not recorded)" : pretty(step.output)));
}

function endView(ep) {
  return el("div", { class: "step-view end" },
    el("h3", null, "Outcome"),
    el("p", null, ep.submitted ? "Submitted" : ep.truncated ? "Ended by the step limit" : "Not submitted",
      ep.answer !== null ? ": " : "", ep.answer !== null ? el("code", { id: "answer-shown" }, ep.answer) : null),
    ep.error ? message(ep.error, "error") : null,
    verdictPanel(verdictOf(ep), ep.checks));
}

let keyHandler = null;  // arrow keys step through the episode on screen

function openEpisode(viewer, ep, number) {
  let at = 0;
  const last = ep.steps.length;  // the position after the last step shows the outcome
  const pane = el("div", { class: "step-pane" });
  const label = el("span", { id: "step-label" });
  const timeline = el("ol", { class: "timeline" }, ep.steps.map((s, i) =>
    el("li", null, el("button", { type: "button", on: { click: () => go(i) } }, s.tool, s.ok ? "" : " ✗"))),
    el("li", null, el("button", { type: "button", on: { click: () => go(last) } }, "outcome")));
  const go = (i) => {
    at = Math.max(0, Math.min(last, i));
    clear(pane).append(at === last ? endView(ep) : stepView(ep, ep.steps[at], at));
    label.textContent = at === last ? `outcome (after ${last} steps)` : `step ${at + 1} of ${last}`;
    timeline.querySelectorAll("button").forEach((b, j) => b.classList.toggle("active", j === at));
  };
  const nav = (id, text, target) => el("button", { type: "button", id, on: { click: () => go(target()) } }, text);
  if (keyHandler) document.removeEventListener("keydown", keyHandler);
  keyHandler = (event) => {
    if (!pane.isConnected || (event.target.closest && event.target.closest("input, textarea, select"))) return;
    if (event.key === "ArrowRight") go(at + 1);
    if (event.key === "ArrowLeft") go(at - 1);
  };
  document.addEventListener("keydown", keyHandler);
  clear(viewer).append(section(`Episode ${number + 1}: ${ep.task_id || ep.env_id}`,
    el("p", { class: "muted" }, el("code", null, ep.env_id), ep.max_steps ? ` · step limit ${ep.max_steps}` : ""),
    el("p", { class: "prompt", id: "replay-prompt" }, ep.prompt),
    el("div", { class: "stepper" },
      nav("first", "« First", () => 0), nav("prev", "‹ Previous", () => at - 1), " ", label, " ",
      nav("next", "Next ›", () => at + 1), nav("last", "Outcome »", () => last)),
    el("div", { class: "replay-grid" }, timeline, pane)));
  go(0);
  viewer.scrollIntoView({ block: "start" });
}

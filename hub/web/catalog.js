// The catalog page: search, taxonomy tree (L1 -> L2) with counts, provenance and tool-count
// filters, and paging. All rows are fetched once and filtered here: 2,000 rows filter in well
// under a millisecond, and only one page of them is ever in the DOM.

import { hub } from "./api.js";
import { badge, clear, debounce, el, message } from "./dom.js";

const PAGE_SIZE = 50;
let cache = null;  // the listing, kept across visits within the tab

async function listing() {
  if (!cache) {
    const data = await hub.catalog();
    cache = data.envs.map((row) => ({
      ...row,
      haystack: `${row.id} ${row.title} ${row.description} ${row.l1} ${row.l2} ${row.l3}`.toLowerCase(),
    }));
  }
  return cache;
}

function stateFrom(params) {
  return {
    q: params.get("q") || "",
    l1: params.get("l1") || "",
    l2: params.get("l2") || "",
    provenance: new Set((params.get("prov") || "").split(",").filter(Boolean)),
    minTools: params.get("min") || "",
    maxTools: params.get("max") || "",
    page: Math.max(0, Number(params.get("page") || 0) | 0),
  };
}

function toParams(state) {
  const p = new URLSearchParams();
  if (state.q) p.set("q", state.q);
  if (state.l1) p.set("l1", state.l1);
  if (state.l2) p.set("l2", state.l2);
  if (state.provenance.size) p.set("prov", [...state.provenance].join(","));
  if (state.minTools) p.set("min", state.minTools);
  if (state.maxTools) p.set("max", state.maxTools);
  if (state.page) p.set("page", String(state.page));
  return p.toString();
}

// Everything but the taxonomy: the tree's counts say where the other filters' matches are.
function matchesOthers(row, state, words) {
  if (state.provenance.size && !state.provenance.has(row.provenance)) return false;
  const min = state.minTools === "" ? null : Number(state.minTools);
  const max = state.maxTools === "" ? null : Number(state.maxTools);
  if (min !== null || max !== null) {
    if (row.tools === null || row.tools === undefined) return false;
    if (min !== null && row.tools < min) return false;
    if (max !== null && row.tools > max) return false;
  }
  return words.every((w) => row.haystack.includes(w));
}

function taxonomyTree(rows, state, onPick) {
  const tree = new Map();
  for (const row of rows) {
    if (!tree.has(row.l1)) tree.set(row.l1, { count: 0, l2: new Map() });
    const node = tree.get(row.l1);
    node.count += 1;
    node.l2.set(row.l2, (node.l2.get(row.l2) || 0) + 1);
  }
  const all = el("button", { type: "button", class: `tree-item ${state.l1 ? "" : "active"}`,
                             on: { click: () => onPick("", "") } }, `All categories (${rows.length})`);
  const branches = [...tree.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([l1, node]) =>
    el("details", { class: "tree-branch", open: state.l1 === l1 },
      el("summary", null,
        el("button", { type: "button", class: `tree-item ${state.l1 === l1 && !state.l2 ? "active" : ""}`,
                       "data-l1": l1, on: { click: (e) => { e.preventDefault(); onPick(l1, ""); } } },
          `${l1} (${node.count})`)),
      el("ul", null, [...node.l2.entries()].sort((a, b) => a[0].localeCompare(b[0])).map(([l2, n]) =>
        el("li", null, el("button", {
          type: "button", class: `tree-item leaf ${state.l1 === l1 && state.l2 === l2 ? "active" : ""}`,
          "data-l2": l2, on: { click: () => onPick(l1, l2) } }, `${l2} (${n})`))))));
  return el("nav", { class: "tree", "aria-label": "taxonomy" }, all, branches);
}

function card(row) {
  const tools = row.tools === null || row.tools === undefined ? "tools: ?" : `${row.tools} tools`;
  return el("article", { class: "env-card", "data-env": row.id },
    el("h3", null, el("a", { href: `#/env/${encodeURIComponent(row.id)}` }, row.title)),
    el("p", { class: "muted small" }, el("code", null, row.id), " · ",
       [row.l1, row.l2, row.l3].filter(Boolean).join(" › ")),
    el("p", { class: "meta" }, badge(row.provenance, `prov-${row.provenance}`), " ", badge(tools)),
    el("p", { class: "desc" }, row.description));
}

function provenanceFilter(rows, state, onChange) {
  const kinds = [...new Set(rows.map((r) => r.provenance))].sort();
  return el("fieldset", { class: "filters" }, el("legend", null, "Provenance"),
    kinds.map((kind) => el("label", { class: "check" },
      el("input", { type: "checkbox", value: kind, checked: state.provenance.has(kind), "data-prov": kind,
                    on: { change: (e) => { e.target.checked ? state.provenance.add(kind) : state.provenance.delete(kind); onChange(); } } }),
      ` ${kind} (${rows.filter((r) => r.provenance === kind).length})`)));
}

export async function renderCatalog(view, params, alive) {
  const rows = await listing();
  if (!alive()) return;
  const state = stateFrom(params);
  const unknownTools = rows.filter((r) => r.tools === null || r.tools === undefined).length;

  const treeHolder = el("div");
  const results = el("div", { class: "results" });
  const summary = el("p", { class: "muted", id: "catalog-count" });
  const pager = el("div", { class: "pager" });

  const refresh = () => {
    history.replaceState(null, "", `#/?${toParams(state)}`);
    const words = state.q.toLowerCase().split(/\s+/).filter(Boolean);
    const others = rows.filter((r) => matchesOthers(r, state, words));
    const shown = others.filter((r) => (!state.l1 || r.l1 === state.l1) && (!state.l2 || r.l2 === state.l2));
    const pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
    state.page = Math.min(state.page, pages - 1);
    clear(treeHolder).append(taxonomyTree(others, state, (l1, l2) => {
      state.l1 = l1; state.l2 = l2; state.page = 0; refresh();
    }));
    const start = state.page * PAGE_SIZE;
    clear(results).append(...shown.slice(start, start + PAGE_SIZE).map(card));
    if (!shown.length) results.append(message("No environment matches these filters."));
    summary.textContent = `${shown.length} of ${rows.length} environments` +
      (state.l1 ? ` in ${state.l1}${state.l2 ? " › " + state.l2 : ""}` : "");
    const go = (page) => { state.page = page; refresh(); window.scrollTo(0, 0); };
    clear(pager).append(
      el("button", { type: "button", disabled: state.page === 0, "data-page": "prev", on: { click: () => go(state.page - 1) } }, "‹ Previous"),
      el("span", { id: "page-label" }, ` page ${state.page + 1} of ${pages} `),
      el("button", { type: "button", disabled: state.page >= pages - 1, "data-page": "next", on: { click: () => go(state.page + 1) } }, "Next ›"));
  };
  const onFilter = () => { state.page = 0; refresh(); };
  const search = el("input", { type: "search", id: "search", placeholder: "Search id, title, description…",
                               value: state.q, "aria-label": "search environments",
                               on: { input: debounce((e) => { state.q = e.target.value; onFilter(); }, 80) } });
  const number = (key, label) => el("label", null, label, " ",
    el("input", { type: "number", min: "0", class: "narrow", value: state[key], id: `tools-${key}`,
                  on: { input: debounce((e) => { state[key] = e.target.value; onFilter(); }, 80) } }));

  clear(view).append(el("div", { class: "catalog" },
    el("aside", { class: "sidebar" },
      search,
      provenanceFilter(rows, state, onFilter),
      el("fieldset", { class: "filters" }, el("legend", null, "Tools"), number("minTools", "min"), " ", number("maxTools", "max"),
        unknownTools ? el("p", { class: "muted small" },
          `${unknownTools} environments have no tool count until they are opened; a tool filter leaves them out.`) : null),
      el("h2", { class: "small-heading" }, "Taxonomy"), treeHolder),
    el("div", { class: "main" }, summary, pager, results)));
  refresh();
}

// Building the page's DOM. Every piece of data reaches the page as a text node or an attribute
// value set here: nothing is ever parsed as HTML, so a row or an output holding <script> is text.

const FORBIDDEN_ATTRIBUTE = /^on|^(srcdoc|formaction)$/i;

export function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "on") for (const [event, fn] of Object.entries(value)) node.addEventListener(event, fn);
    else if (key === "value" || key === "checked" || key === "selected" || key === "disabled") node[key] = value;
    else if (FORBIDDEN_ATTRIBUTE.test(key)) throw new Error(`el(): refusing attribute ${key}`);
    else if (key === "href" && !String(value).startsWith("#")) throw new Error("el(): links stay in the page");
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

// JSON shown to a person: indented, as text.
export function pretty(value) {
  if (typeof value === "string") {
    try { return JSON.stringify(JSON.parse(value), null, 2); } catch { return value; }
  }
  return JSON.stringify(value, null, 2);
}

export function badge(text, kind) {
  return el("span", { class: `badge ${kind || ""}`.trim() }, text);
}

export function table(headers, rows, options = {}) {
  return el("table", { class: options.class || "grid" },
    el("thead", null, el("tr", null, headers.map((h) => el("th", null, h)))),
    el("tbody", null, rows.map((cells) => el("tr", null,
      cells.map((c) => el("td", null, c instanceof Node ? c : cellText(c)))))));
}

function cellText(value) {
  if (value === null || value === undefined) return "—";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

export function section(title, ...children) {
  return el("section", { class: "panel" }, el("h2", null, title), ...children);
}

export function message(text, kind = "info") {
  return el("p", { class: `message ${kind}`, role: kind === "error" ? "alert" : "status" }, text);
}

export function download(filename, text, type = "application/json") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = el("a", { download: filename });
  link.href = url;  // a blob: URL made here, never one read from data
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

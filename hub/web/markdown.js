// The small part of Markdown the arena's reports use (headings, paragraphs, lists, fenced code,
// tables, images), built as DOM nodes with text content: never parsed as HTML.

import { el } from "./dom.js";

function inline(text) {
  // `code` spans; everything else stays plain text.
  return text.split(/(`[^`]+`)/).filter(Boolean).map((part) =>
    part.startsWith("`") && part.endsWith("`") ? el("code", null, part.slice(1, -1)) : part);
}

function cells(line) {
  return line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => c.trim());
}

// resolveImage(path) returns a blob: URL for an image of the opened folder, or null.
export function renderMarkdown(text, resolveImage) {
  const out = el("div", { class: "markdown" });
  const lines = text.split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.startsWith("```")) {
      const body = [];
      for (i += 1; i < lines.length && !lines[i].startsWith("```"); i += 1) body.push(lines[i]);
      out.append(el("pre", null, body.join("\n")));
      i += 1;
    } else if (/^#{1,4} /.test(line)) {
      const level = Math.min(4, line.indexOf(" "));
      out.append(el(`h${level}`, null, inline(line.replace(/^#+ /, ""))));
      i += 1;
    } else if (line.trim().startsWith("|")) {
      const rows = [];
      for (; i < lines.length && lines[i].trim().startsWith("|"); i += 1) rows.push(lines[i]);
      const body = rows.slice(1).filter((r) => !/^\s*\|?[\s:|-]+\|?\s*$/.test(r));
      out.append(el("table", { class: "grid" },
        el("thead", null, el("tr", null, cells(rows[0]).map((c) => el("th", null, inline(c))))),
        el("tbody", null, body.map((r) => el("tr", null, cells(r).map((c) => el("td", null, inline(c))))))));
    } else if (/^!\[[^\]]*\]\([^)]+\)\s*$/.test(line.trim())) {
      const [, alt, src] = line.trim().match(/^!\[([^\]]*)\]\(([^)]+)\)/);
      const url = resolveImage ? resolveImage(src) : null;
      if (url) {
        const img = el("img", { alt, class: "plot", "data-src": src });
        img.src = url;  // a blob: URL of a file the user opened, never a path from the text
        out.append(el("figure", null, img, el("figcaption", null, alt)));
      } else {
        out.append(el("p", { class: "muted" }, `[image not in the opened folder: ${src}]`));
      }
      i += 1;
    } else if (/^\s*[-*] /.test(line)) {
      const items = [];
      for (; i < lines.length && /^\s*[-*] /.test(lines[i]); i += 1) items.push(lines[i].replace(/^\s*[-*] /, ""));
      out.append(el("ul", null, items.map((t) => el("li", null, inline(t)))));
    } else if (line.trim() === "") {
      i += 1;
    } else {
      const para = [];
      for (; i < lines.length && lines[i].trim() !== "" && !/^(#|```|\||!\[|\s*[-*] )/.test(lines[i]); i += 1) para.push(lines[i]);
      if (!para.length) { para.push(line); i += 1; }
      out.append(el("p", null, inline(para.join(" "))));
    }
  }
  return out;
}

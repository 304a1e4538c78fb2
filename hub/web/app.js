// The page's router: #/ catalog, #/env/ID, #/play/ID?task=T, #/replay?session=S.

import { onUnauthorized, setToken, token } from "./api.js";
import { renderCatalog } from "./catalog.js";
import { clear, message } from "./dom.js";
import { renderEnvironment } from "./environment.js";
import { renderPlay } from "./play.js";
import { renderReplay } from "./replay.js";

const view = document.getElementById("view");
const tokenPanel = document.getElementById("token-panel");
const tokenMessage = document.getElementById("token-message");

function parseHash() {
  const raw = location.hash.replace(/^#/, "") || "/";
  const [path, query] = raw.split("?", 2);
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  return { parts, params: new URLSearchParams(query || "") };
}

let generation = 0;  // a route change abandons the views of the previous one

async function route() {
  const mine = ++generation;
  const { parts, params } = parseHash();
  const alive = () => mine === generation;
  const section = parts[0] || "catalog";
  document.querySelectorAll("[data-nav]").forEach((a) =>
    a.classList.toggle("active", a.dataset.nav === section ||
      (a.dataset.nav === "catalog" && section !== "replay")));
  clear(view).append(message("Loading…"));
  try {
    if (section === "env" && parts[1]) await renderEnvironment(view, parts[1], alive);
    else if (section === "play" && parts[1]) await renderPlay(view, parts[1], params, alive);
    else if (section === "replay") await renderReplay(view, params, alive);
    else await renderCatalog(view, params, alive);
  } catch (err) {
    if (!alive()) return;
    clear(view).append(message(`${err.code ? err.code + ": " : ""}${err.message}`, "error"));
  }
}

function showTokenPanel(text) {
  tokenPanel.hidden = false;
  tokenMessage.hidden = !text;
  tokenMessage.textContent = text || "";
  document.getElementById("token-input").focus();
}

onUnauthorized(() => showTokenPanel(token()
  ? "The hub refused this token (401 UNAUTHORIZED). Enter the right one."
  : "This hub needs a token (401 UNAUTHORIZED)."));

document.getElementById("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = document.getElementById("token-input");
  setToken(input.value.trim());
  input.value = "";
  tokenPanel.hidden = true;
  route();
});
document.getElementById("token-clear").addEventListener("click", () => {
  setToken("");
  showTokenPanel("Token forgotten.");
});
document.getElementById("token-button").addEventListener("click", () =>
  tokenPanel.hidden ? showTokenPanel("") : (tokenPanel.hidden = true));

window.addEventListener("hashchange", route);
route();

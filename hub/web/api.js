// Talking to the hub: the token lives in this tab's sessionStorage and travels only in the
// Authorization header, never in a URL. Every request is same-origin.

const TOKEN_KEY = "agentworld.token";

export class HubError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

export function setToken(value) {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

const listeners = new Set();
export function onUnauthorized(fn) { listeners.add(fn); }

export async function call(method, path, body) {
  const headers = { accept: "application/json" };
  if (token()) headers.authorization = `Bearer ${token()}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  let response;
  try {
    response = await fetch(path, { method, headers, credentials: "omit", cache: "no-store",
                                   body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new HubError(0, "NETWORK", `the hub did not answer: ${err.message}`);
  }
  if (response.status === 204) return null;
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  if (!response.ok) {
    const error = (data && data.error) || {};
    const failure = new HubError(response.status, error.code || `HTTP_${response.status}`,
                                 error.message || response.statusText);
    if (response.status === 401) listeners.forEach((fn) => fn(failure));
    throw failure;
  }
  return data;
}

const enc = encodeURIComponent;

export const hub = {
  catalog: () => call("GET", "/v1/web/catalog"),
  environment: (id) => call("GET", `/v1/web/envs/${enc(id)}`),
  tasks: (id) => call("GET", `/v1/web/envs/${enc(id)}/tasks`),
  tables: (id, rows = 5) => call("GET", `/v1/web/envs/${enc(id)}/tables?rows=${rows}`),
  trajectory: (sid) => call("GET", `/v1/sessions/${enc(sid)}/trajectory`),
  // The agents' own session API.
  reset: (body) => call("POST", "/v1/sessions", body),
  step: (sid, action) => call("POST", `/v1/sessions/${enc(sid)}/step`, { action }),
  end: (sid) => call("DELETE", `/v1/sessions/${enc(sid)}`),
};

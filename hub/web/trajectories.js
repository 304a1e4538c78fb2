// Reading trajectory files into one episode shape. Accepted: the arena's trajectories.jsonl
// (one episode per line, trainer/arena/records.py), a trajectory this page downloaded or a
// finished session (the same shape), a session's state (GET /v1/sessions/ID), and the report
// that `agentworld eval --json` prints (outcomes only: eval records no steps).

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text.split("\n").filter((l) => l.trim()).map((line, n) => {
      try { return JSON.parse(line); } catch { throw new Error(`line ${n + 1} is not JSON`); }
    });
  }
}

function normalize(raw, index) {
  if (!raw || typeof raw !== "object") throw new Error(`episode ${index + 1} is not an object`);
  const verdict = raw.verdict || null;
  const steps = Array.isArray(raw.steps) ? raw.steps
    : Array.isArray(raw.trajectory) ? raw.trajectory.map((s) => ({ ...s, output: s.output })) : null;
  return {
    env_id: String(raw.env_id ?? "?"),
    task_id: raw.task_id ?? null,
    prompt: raw.prompt ?? "",
    steps: (steps || []).map((s) => ({ tool: String(s.tool ?? "?"), arguments: s.arguments ?? {}, ok: !!s.ok,
                                       error_code: s.error_code ?? null, output: s.output })),
    recorded: steps !== null,
    submitted: raw.submitted ?? raw.terminated ?? null,
    answer: raw.answer ?? null,
    truncated: !!raw.truncated,
    reward: verdict ? verdict.reward : raw.reward ?? null,
    passed: verdict ? verdict.passed : raw.passed ?? null,
    score: verdict ? verdict.score : raw.score ?? null,
    components: verdict ? verdict.components : raw.components ?? {},
    checks: raw.checks || [],
    max_steps: raw.max_steps ?? null,
    turns: raw.turns ?? null,
    error: raw.error ?? null,
  };
}

export function readTrajectories(text) {
  const data = parse(text);
  if (Array.isArray(data)) return { episodes: data.map(normalize) };
  if (data && Array.isArray(data.episodes)) return { report: data, episodes: data.episodes.map(normalize) };
  if (data && (Array.isArray(data.steps) || Array.isArray(data.trajectory))) return { episodes: [normalize(data, 0)] };
  throw new Error("not a trajectory file: expected episodes with steps (JSON or JSON Lines) or an eval report");
}

export function verdictOf(episode) {
  if (episode.passed === null && episode.reward === null) return null;
  return { passed: !!episode.passed, reward: episode.reward ?? 0, score: episode.score, components: episode.components || {} };
}

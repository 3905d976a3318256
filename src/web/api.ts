/**
 * The web view's JSON endpoints, behind the login cookie: the sessions (as term_list sees them),
 * a session's audit trail and its recording (asciicast, played back in the browser), and the
 * guard's pending questions with the human's answer. Posts are JSON only: a cross-site form cannot
 * send that without a CORS preflight, which is never granted (one of the CSRF defences; see
 * router.ts for the others).
 */
import { existsSync, readFileSync } from "node:fs";
import type { SessionHost } from "../api/host.ts";
import { SESSION_ID_RE } from "../api/session-id.ts";
import { toAppError } from "../api/errors.ts";
import { auditDir, trailFiles } from "../audit/trail.ts";
import { castFile } from "../audit/recording.ts";
import type { PendingQuestions } from "./questions.ts";
import { HUMAN_CLIENT_ID, jsonAnswer, webAnswer } from "./responses.ts";

/** The trail entries a page shows at most: the latest ones. */
export const TRAIL_ENTRIES_SHOWN = 500;

export interface ApiDeps {
  host: SessionHost;
  questions: PendingQuestions;
}

function trailOf(session: string): Record<string, unknown>[] {
  const entries: Record<string, unknown>[] = [];
  for (const file of trailFiles(session, auditDir())) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (line.trim() === "") continue;
      try {
        entries.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // A line cut short by a crash: the rest of the trail still shows.
      }
    }
  }
  return entries.slice(-TRAIL_ENTRIES_SHOWN);
}

async function answerQuestion(req: Request, deps: ApiDeps, id: string): Promise<Response> {
  let body: unknown;
  try {
    body = await req.json();
  } catch {
    return jsonAnswer(400, { error: 'send JSON: {"allow": true|false}' });
  }
  const allow = (body as { allow?: unknown } | null)?.allow;
  if (typeof allow !== "boolean") return jsonAnswer(400, { error: 'send JSON: {"allow": true|false}' });
  if (!deps.questions.answer(id, allow)) return jsonAnswer(404, { error: "no such question (answered or withdrawn)" });
  return jsonAnswer(200, { answered: id, allow });
}

/** The answer to an API request (the path starts with /api/), or a 404. */
export async function answerApi(req: Request, path: string, deps: ApiDeps): Promise<Response> {
  const [, , what, name] = path.split("/");
  if (name !== undefined && !SESSION_ID_RE.test(name) && what !== "questions")
    return jsonAnswer(400, { error: "invalid session name" });
  if (req.method === "POST") {
    if (what === "questions" && name !== undefined) return answerQuestion(req, deps, name);
    return jsonAnswer(404, { error: "no such endpoint" });
  }
  if (req.method !== "GET") return jsonAnswer(405, { error: "GET or POST" });
  switch (what) {
    case "sessions":
      try {
        const listed = await deps.host.call("list", {}, { clientId: HUMAN_CLIENT_ID });
        return jsonAnswer(200, { sessions: listed });
      } catch (err) {
        return jsonAnswer(500, { error: toAppError(err).message });
      }
    case "audit":
      if (name === undefined) return jsonAnswer(400, { error: "which session?" });
      return jsonAnswer(200, { session: name, entries: trailOf(name) });
    case "recording": {
      if (name === undefined) return jsonAnswer(400, { error: "which session?" });
      const file = castFile(auditDir(), name);
      if (!existsSync(file))
        return jsonAnswer(404, { error: "no recording of this session (turn on audit.recording in the config)" });
      return webAnswer(200, Bun.file(file), { "Content-Type": "application/x-asciicast" });
    }
    case "questions":
      return jsonAnswer(200, { questions: deps.questions.list() });
    default:
      return jsonAnswer(404, { error: "no such endpoint" });
  }
}

// The MCP Apps view of a session (src/web/mcp-app.ts), shown by the host beside a term_open or
// term_exec result: the session's screen, kept current through the host by the app-only tool
// term_view_screen (each call answers once the screen differs from the one shown, or after its
// wait), its state and last exit code. Read-only until "Take over": then what is typed goes to the session
// through the app-only tool term_view_input, as the human's (the trail says "human (MCP App)"; the
// guard still judges it). The guard's questions this client's calls wait on show below the bar,
// to approve or decline (term_view_questions, term_view_answer: app-only too).
// `App` (@modelcontextprotocol/ext-apps) and `Terminal` (@xterm/xterm) are defined before this.

/** After a failed screen read, how long before the next; and the least time between two redraws. */
const RETRY_MS = 1000;
const MIN_REDRAW_MS = 100;
/**
 * How often the guard's questions are looked for: well within the store's WATCHED_WITHIN_MS, so
 * that while the view is open a question is put to the human here rather than refused at once.
 */
const QUESTIONS_MS = 1500;

const $ = (id) => document.getElementById(id);
const app = new App({ name: "ptyhub terminal", version: "1" });
const term = new Terminal({ cols: 80, rows: 24, fontSize: 13, convertEol: true });
term.open($("terminal"));
let session = null;
let takeover = false;
let shown = "";
/** The digest of the screen shown: the next read waits until the session's differs from it. */
let seen;
let watching = false;
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Shows one screen read; then what to do: read on ("on"), again after a while ("retry"), or stop ("ended"). */
function show(r) {
  const s = r.structuredContent;
  if (!s || r.isError) {
    $("state").textContent = r.content?.[0]?.text ?? "unreadable";
    // A session closed is not coming back under this name: stop reading it.
    return s?.error?.code === "SESSION_NOT_FOUND" ? "ended" : "retry";
  }
  $("state").textContent = s.state;
  showExit(s.exit_code);
  seen = s.digest;
  if (s.output !== shown) {
    shown = s.output;
    term.reset();
    term.write(s.output);
  }
  if (s.cursor) term.write(`\x1b[${s.cursor.row + 1};${s.cursor.col + 1}H`);
  return s.state === "exited" ? "ended" : "on";
}

/** One call after another, each answered when the session has printed (or its wait ran out). */
async function watchScreen() {
  for (;;) {
    let next = "retry";
    try {
      const asked = session;
      const r = await app.callServerTool({ name: "term_view_screen", arguments: { session, seen } });
      // Another session followed meanwhile: its screen is read next.
      next = asked === session ? show(r) : "on";
    } catch (err) {
      $("state").textContent = `unreadable: ${err.message}`;
    }
    if (next === "ended") {
      watching = false;
      return;
    }
    await pause(next === "on" ? MIN_REDRAW_MS : RETRY_MS);
  }
}

/** The last exit code known: the shown tool result's, then any a screen read reports. */
function showExit(code) {
  if (typeof code === "number") $("exit").textContent = `exit ${code}`;
}

/** The session the shown call named, for a result without structuredContent (a text-form client). */
let namedInCall = null;
app.ontoolinput = (p) => {
  const a = p?.arguments ?? {};
  namedInCall = typeof a.session === "string" ? a.session : typeof a.name === "string" ? a.name : null;
};

function follow(result) {
  const named = result?.structuredContent?.session ?? namedInCall;
  if (typeof named !== "string") return;
  showExit(result?.structuredContent?.exit_code);
  if (named !== session) seen = undefined;
  session = named;
  $("session").textContent = named;
  if (watching) return;
  watching = true;
  void watchScreen();
  void showQuestions();
  setInterval(() => void showQuestions().catch(() => undefined), QUESTIONS_MS);
}

/** The guard's questions waiting for this client, each with Approve and Decline. */
async function showQuestions() {
  const r = await app.callServerTool({ name: "term_view_questions", arguments: {} });
  const list = r.isError ? [] : (r.structuredContent?.questions ?? []);
  const box = $("questions");
  box.replaceChildren(
    ...list.map((q) => {
      const row = document.createElement("div");
      row.className = "question";
      row.dataset.id = q.id;
      const text = document.createElement("span");
      text.textContent = q.message;
      row.append(text, answerButton(q.id, true, "Approve"), answerButton(q.id, false, "Decline"));
      return row;
    }),
  );
}

function answerButton(id, allow, label) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = allow ? "approve" : "decline";
  b.textContent = label;
  b.addEventListener("click", async () => {
    const r = await app.callServerTool({ name: "term_view_answer", arguments: { id, allow } });
    if (r.isError) say(r.content?.[0]?.text ?? "not answered");
    await showQuestions();
  });
  return b;
}

app.ontoolresult = follow;
$("takeover").addEventListener("click", () => {
  takeover = !takeover;
  $("takeover").textContent = takeover ? "Give back" : "Take over";
  $("mode").textContent = takeover ? "you are typing into this session" : "read-only";
  if (takeover) term.focus();
});
function say(text) {
  $("mode").textContent = text;
}

/** Keys go out one call after another, in the order typed. */
let sending = Promise.resolve();
term.onData((text) => {
  if (!takeover || session === null) return;
  sending = sending
    .then(() => app.callServerTool({ name: "term_view_input", arguments: { session, text } }))
    .then((r) => r.isError && say(r.content?.[0]?.text ?? "not sent"))
    .catch((err) => say(`not sent: ${err.message}`));
});
await app.connect();

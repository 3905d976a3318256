// The web view's page (src/web/client/index.html): the sessions, one session's live terminal,
// recording and audit trail, and the guard's questions waiting for an answer. Lists are polled.
import { openLive } from "/assets/terminal.js";
import { playCast } from "/assets/cast.js";

/** How often the session list and the guard's questions are fetched again. */
const POLL_MS = 1000;

const $ = (id) => document.getElementById(id);
let selected = null;
let live = null;
let cast = null;

async function getJson(path) {
  const res = await fetch(path, { credentials: "same-origin" });
  if (res.status === 401) location.reload();
  return res.json();
}

function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text;
  row.append(td);
}

async function refreshSessions() {
  const { sessions = [] } = await getJson("/api/sessions");
  const body = $("sessions").tBodies[0];
  body.replaceChildren();
  for (const s of sessions) {
    const row = document.createElement("tr");
    row.dataset.session = s.session;
    if (s.session === selected) row.className = "selected";
    for (const text of [s.session, s.state, s.exit_code ?? "", s.kind, `${s.cols}x${s.rows}`]) cell(row, String(text));
    row.addEventListener("click", () => select(s.session));
    body.append(row);
    if (s.session !== selected) continue;
    $("view-state").textContent = `${s.state}${s.exit_code === null ? "" : ` · exit ${s.exit_code}`}`;
    live?.follow(s.cols, s.rows);
  }
  $("status").textContent = `${sessions.length} session${sessions.length === 1 ? "" : "s"}`;
}

async function answer(id, allow) {
  await fetch(`/api/questions/${encodeURIComponent(id)}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ allow }),
  });
  await refreshQuestions();
}

async function refreshQuestions() {
  const { questions = [] } = await getJson("/api/questions");
  $("questions").hidden = questions.length === 0;
  const list = $("question-list");
  const shown = new Set([...list.children].map((li) => li.dataset.id));
  if (questions.length === shown.size && questions.every((q) => shown.has(q.id))) return;
  list.replaceChildren();
  for (const q of questions) {
    const li = document.createElement("li");
    li.dataset.id = q.id;
    const text = document.createElement("pre");
    text.textContent = q.message;
    const yes = document.createElement("button");
    yes.textContent = "Approve";
    yes.className = "approve";
    yes.addEventListener("click", () => answer(q.id, true));
    const no = document.createElement("button");
    no.textContent = "Decline";
    no.className = "decline";
    no.addEventListener("click", () => answer(q.id, false));
    li.append(text, yes, " ", no);
    list.append(li);
  }
}

function showPane(name) {
  for (const pane of ["live", "recording", "audit"]) {
    $(`${pane}-pane`).hidden = pane !== name;
    $(`tab-${pane}`).classList.toggle("active", pane === name);
  }
  if (name === "audit") void loadAudit();
}

function select(session) {
  selected = session;
  live?.close();
  $("view").hidden = false;
  $("view-title").textContent = session;
  $("terminal").replaceChildren();
  setMode(false);
  live = openLive($("terminal"), session, (state) => ($("view-state").dataset.link = state));
  live.onMode(setMode);
  live.onSize((cols, rows) => {
    $("cols").value = cols;
    $("rows").value = rows;
  });
  showPane("live");
  void refreshSessions();
}

function setMode(takeover) {
  $("mode").textContent = takeover ? "you are typing into this session" : "read-only";
  $("mode").className = takeover ? "takeover" : "";
  $("takeover").textContent = takeover ? "Give back" : "Take over";
  $("takeover").dataset.on = takeover ? "1" : "";
  $("resize").disabled = !takeover;
}

async function loadAudit() {
  const { entries = [] } = await getJson(`/api/audit/${encodeURIComponent(selected)}`);
  const body = $("audit").tBodies[0];
  body.replaceChildren();
  for (const e of entries) {
    const row = document.createElement("tr");
    const { t, event, who, session, ...rest } = e;
    cell(row, String(t ?? ""));
    cell(row, String(event ?? ""));
    cell(row, String(who ?? ""));
    cell(row, rest.text ?? rest.line ?? JSON.stringify(rest));
    body.append(row);
  }
}

async function play() {
  $("play-state").textContent = "loading…";
  const res = await fetch(`/api/recording/${encodeURIComponent(selected)}`, { credentials: "same-origin" });
  if (!res.ok) {
    $("play-state").textContent = (await res.json()).error;
    return;
  }
  $("play-state").textContent = "playing…";
  cast = playCast($("cast-terminal"), await res.text(), cast?.term);
  await cast.done;
  $("play-state").textContent = "played";
}

$("tab-live").addEventListener("click", () => showPane("live"));
$("tab-recording").addEventListener("click", () => showPane("recording"));
$("tab-audit").addEventListener("click", () => showPane("audit"));
$("takeover").addEventListener("click", () => live?.setTakeover(!$("takeover").dataset.on));
$("resize").addEventListener("click", () => live?.resize(Number($("cols").value), Number($("rows").value)));
$("play").addEventListener("click", () => void play());

const poll = async () => {
  try {
    await Promise.all([refreshSessions(), refreshQuestions()]);
  } catch (err) {
    $("status").textContent = `server unreachable: ${err.message}`;
  }
  setTimeout(poll, POLL_MS);
};
void poll();

// A live session in the browser: an xterm.js terminal fed by the server's WebSocket
// (src/web/terminal-socket.ts). Read-only until takeOver(); then keys go to the session and
// resize() changes the session's size.
import { Terminal } from "/assets/xterm.mjs";

/** Opens `session` in `container`; `onState(text)` hears what the connection is doing. */
export function openLive(container, session, onState) {
  const term = new Terminal({ convertEol: false, scrollback: 1000, fontSize: 14 });
  term.open(container);
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const url = `${scheme}://${location.host}/ws/term/${encodeURIComponent(session)}?cols=${term.cols}&rows=${term.rows}`;
  const ws = new WebSocket(url);
  ws.binaryType = "arraybuffer";
  let takeover = false;
  const listeners = { mode: () => {}, size: () => {} };

  ws.onmessage = (ev) => {
    if (typeof ev.data !== "string") return term.write(new Uint8Array(ev.data));
    const frame = JSON.parse(ev.data);
    if (frame.type === "hello") {
      term.resize(frame.cols, frame.rows);
      term.write(frame.screen);
      listeners.size(frame.cols, frame.rows);
      onState(frame.exit ? `ended: ${frame.exit.reason}` : "live");
    } else if (frame.type === "exit") {
      onState(`ended: ${frame.reason}`);
    } else if (frame.type === "mode") {
      takeover = frame.takeover;
      listeners.mode(takeover);
    } else if (frame.type === "error") {
      onState(`error: ${frame.message}`);
    }
  };
  ws.onclose = () => onState("disconnected");
  term.onData((data) => {
    if (takeover && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "input", data }));
  });

  const send = (frame) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify(frame));
  return {
    term,
    onMode(fn) {
      listeners.mode = fn;
    },
    onSize(fn) {
      listeners.size = fn;
    },
    setTakeover(on) {
      send({ type: on ? "takeover" : "release" });
      if (on) term.focus();
    },
    resize(cols, rows) {
      if (!takeover) return;
      send({ type: "resize", cols, rows });
      term.resize(cols, rows);
      listeners.size(cols, rows);
    },
    /** The session's size as listed: the view follows a resize it did not make (term_resize). */
    follow(cols, rows) {
      if (cols === term.cols && rows === term.rows) return;
      term.resize(cols, rows);
      listeners.size(cols, rows);
    },
    close() {
      ws.close();
      term.dispose();
    },
  };
}

// Plays an asciicast v2 recording (src/audit/recording.ts) into an xterm.js terminal: the header
// sets the size, "o" events are written and "r" events resize, with long pauses cut short.
import { Terminal } from "/assets/xterm.mjs";

/** A pause longer than this in the recording is played as this long. */
const MAX_PAUSE_S = 0.5;

export function parseCast(text) {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const header = JSON.parse(lines[0]);
  const events = [];
  for (const line of lines.slice(1)) {
    try {
      events.push(JSON.parse(line));
    } catch {
      // A line cut short by a crash: play what is whole.
    }
  }
  return { header, events };
}

/** Plays `text` in `container` (any terminal before it is replaced); resolves when it has played. */
export function playCast(container, text, previous) {
  previous?.dispose();
  const { header, events } = parseCast(text);
  const term = new Terminal({ cols: header.width, rows: header.height, fontSize: 14 });
  term.open(container);
  const done = new Promise((resolve) => {
    let at = 0;
    let i = 0;
    const step = () => {
      while (i < events.length) {
        const [t, kind, data] = events[i];
        const wait = Math.min(t - at, MAX_PAUSE_S);
        at = Math.max(at, t);
        if (wait > 0.001) return setTimeout(step, wait * 1000);
        i++;
        if (kind === "o") term.write(data);
        else if (kind === "r") {
          const [cols, rows] = data.split("x").map(Number);
          if (cols > 0 && rows > 0) term.resize(cols, rows);
        }
      }
      term.write("", () => resolve(term));
    };
    step();
  });
  return { term, done };
}

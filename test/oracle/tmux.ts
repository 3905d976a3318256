/**
 * tmux as a reference terminal (issue 22's oracle): a private tmux server (`-L`, `-f /dev/null`,
 * so no user config), one detached session per case at an exact size, its screen read with
 * `capture-pane -p`. Barriers, never sleeps: a byte stream ends with a title mark (OSC 2) and
 * tmux parses a pane's output in order, so once the title shows the mark every byte before it is
 * on the screen; programs are waited on by what their screen shows.
 */
import { waitFor } from "../helpers/wait.ts";

/** A loaded machine (2 cores, 8 helpers) may take this long to start a program and draw it. */
export const SCREEN_WAIT_MS = 20_000;

/** Rows as compared: trailing blanks off each row, blank rows off the end. */
export function normalize(rows: readonly string[]): string[] {
  const out = rows.map((r) => r.trimEnd());
  while (out.length > 0 && out[out.length - 1] === "") out.pop();
  return out;
}

const SGR = /\x1b\[[0-9;:]*m/g;
/** `capture-pane -e` output switches to DEC special graphics with SO and back with SI, across rows. */
const SO = "\x0e";
const SI = "\x0f";
/** The VT100 special graphics set (ESC ( 0), as xterm and ptyhub's emulator draw it. */
const DEC_SPECIAL_GRAPHICS: Record<string, string> = {
  "`": "\u25c6",
  a: "\u2592",
  b: "\u2409",
  c: "\u240c",
  d: "\u240d",
  e: "\u240a",
  f: "\u00b0",
  g: "\u00b1",
  h: "\u2424",
  i: "\u240b",
  j: "\u2518",
  k: "\u2510",
  l: "\u250c",
  m: "\u2514",
  n: "\u253c",
  o: "\u23ba",
  p: "\u23bb",
  q: "\u2500",
  r: "\u23bc",
  s: "\u23bd",
  t: "\u251c",
  u: "\u2524",
  v: "\u2534",
  w: "\u252c",
  x: "\u2502",
  y: "\u2264",
  z: "\u2265",
  "{": "\u03c0",
  "|": "\u2260",
  "}": "\u00a3",
  "~": "\u00b7",
};

function drawn(text: string): string {
  let graphics = false;
  let out = "";
  for (const c of text) {
    if (c === SO || c === SI) graphics = c === SO;
    else out += graphics ? (DEC_SPECIAL_GRAPHICS[c] ?? c) : c;
  }
  return out;
}

export class TmuxServer {
  private next = 0;
  readonly socket = `ptyhub-oracle-${process.pid}-${Date.now()}`;

  async run(args: string[]): Promise<string> {
    const p = Bun.spawn(["tmux", "-L", this.socket, "-f", "/dev/null", ...args], {
      stdout: "pipe",
      stderr: "pipe",
      stdin: "ignore",
    });
    const [out, err, code] = await Promise.all([
      new Response(p.stdout).text(),
      new Response(p.stderr).text(),
      p.exited,
    ]);
    if (code !== 0) throw new Error(`tmux ${args.join(" ")}: exit ${code}: ${err.trim()}`);
    return out;
  }

  /**
   * A session that lives as long as the server: tmux exits with its last session, and a case
   * starting just then would meet a server on its way out.
   */
  private keeper: Promise<string> | null = null;

  /** Starts `argv` in a new detached session of cols × rows; the pane runs with `env` added. */
  async start(argv: string[], opts: { cols: number; rows: number; env?: Record<string, string>; cwd?: string }) {
    this.keeper ??= this.run(["new-session", "-d", "-s", "keeper", "--", "sleep", "86400"]);
    await this.keeper;
    const name = `c${this.next++}`;
    const envArgs = Object.entries({ TERM: "xterm-256color", LANG: "C.UTF-8", ...opts.env }).flatMap(([k, v]) => [
      "-e",
      `${k}=${v}`,
    ]);
    const cwd = opts.cwd ? ["-c", opts.cwd] : [];
    const size = ["-x", String(opts.cols), "-y", String(opts.rows)];
    await this.run(["new-session", "-d", "-s", name, ...size, ...cwd, ...envArgs, "--", ...argv]);
    return new TmuxPane(this, name);
  }

  async stop(): Promise<void> {
    await this.run(["kill-server"]).catch(() => {});
  }
}

export class TmuxPane {
  constructor(
    private readonly server: TmuxServer,
    readonly name: string,
  ) {}

  /**
   * The screen as a person sees it. Plain `capture-pane -p` prints DEC special-graphics cells
   * (ncurses boxes) as the ASCII letters that select them; with -e tmux marks those runs with
   * SO/SI (and adds SGR styles), so the letters are mapped to what the terminal draws and the
   * styles dropped.
   */
  async screen(): Promise<string[]> {
    const out = await this.server.run(["capture-pane", "-p", "-e", "-t", this.name]);
    return drawn(out.replace(SGR, "")).replace(/\n$/, "").split("\n");
  }

  /** 1-based, as ptyhub reports it. */
  async cursor(): Promise<{ row: number; col: number }> {
    const out = await this.server.run(["display-message", "-p", "-t", this.name, "#{cursor_y} #{cursor_x}"]);
    const [y, x] = out.trim().split(" ").map(Number);
    return { row: y! + 1, col: x! + 1 };
  }

  async title(): Promise<string> {
    return (await this.server.run(["display-message", "-p", "-t", this.name, "#{pane_title}"])).trim();
  }

  async waitTitle(mark: string): Promise<void> {
    await waitFor(async () => (await this.title()) === mark, SCREEN_WAIT_MS, `tmux pane title ${mark}`);
  }

  /** Waits until the screen (rows trimmed) satisfies `ready`; a timeout shows the last screen seen. */
  async waitScreen(ready: RegExp | ((screen: string) => boolean), what = String(ready)): Promise<string[]> {
    const test = typeof ready === "function" ? ready : (s: string) => ready.test(s);
    let last: string[] = [];
    try {
      return await waitFor(
        async () => {
          last = await this.screen();
          return test(normalize(last).join("\n")) ? last : null;
        },
        SCREEN_WAIT_MS,
        `tmux screen: ${what}`,
      );
    } catch (err) {
      throw new Error(`${(err as Error).message}; its screen:\n${normalize(last).join("\n")}`);
    }
  }

  /** Types literal text (a `;` ending an argument would be tmux's command separator: escaped). */
  async type(text: string): Promise<void> {
    await this.server.run(["send-keys", "-t", this.name, "-l", text.replace(/;$/, "\\;")]);
  }

  /** Sends tmux key names (Enter, Escape, Down, C-c). */
  async keys(...names: string[]): Promise<void> {
    await this.server.run(["send-keys", "-t", this.name, ...names]);
  }

  async kill(): Promise<void> {
    await this.server.run(["kill-session", "-t", this.name]).catch(() => {});
  }
}

/**
 * The kernel's "the foreground program waits for the terminal" (src/util/tty-wait.ts) on real
 * programs in a real PTY: read(2) of the tty (cat, `read`, ed), select over the tty alone (python's
 * readline, top), poll over the tty alone (htop: the array is read from its memory), epoll over
 * the tty and the loop's own wake-ups (node). Not waiting for keys: sleeping elsewhere, working, or
 * waiting on the tty together with something else.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { PtyProbe } from "../helpers/pty.ts";
import { waitFor } from "../helpers/wait.ts";
import type { TtyWait } from "../../src/util/tty-wait.ts";

const linux = process.platform === "linux";
const WAIT_MS = 10_000;

let probe: PtyProbe | null = null;
afterEach(async () => {
  await probe?.backend.close("KILL");
  probe = null;
});

function start(argv: string[]): PtyProbe {
  probe = new PtyProbe(argv);
  return probe;
}

/** Whether the program sleeps (S) in a system call whose /proc `wchan` is `where` (the oracle). */
function sleepsIn(pid: number, where: RegExp): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const state = stat.charAt(stat.lastIndexOf(")") + 2);
    return state === "S" && where.test(readFileSync(`/proc/${pid}/wchan`, "latin1"));
  } catch {
    return false;
  }
}

const POLLING = /poll|select/;

describe.if(linux)("the kernel says who waits for the terminal", () => {
  const readers: Array<[string, string[], RegExp, TtyWait]> = [
    ["cat (read of the tty)", ["cat"], /$/, "read"],
    ["bash `read -r x`", ["bash", "-c", "echo ready; read -r x"], /ready/, "read"],
    ["ed (a line editor: read of the tty)", ["ed"], /$/, "read"],
    ["python3 -q (readline: select over the tty, no time limit)", ["python3", "-q"], />>> /, "read"],
    ["top -d 1 (pselect over the tty, a redraw timer)", ["top", "-d", "1"], /load average/, "timed"],
    ["htop (poll over the tty with a timeout, read from its memory)", ["htop"], /Load average|Tasks/, null],
    // A timer of the REPL's start runs out first: timed, then read.
    ["node's REPL (epoll over the tty and libuv's own eventfd and self-pipe)", ["node"], /> /, null],
  ];
  for (const [name, argv, ready, how] of readers) {
    test(`${name}: waits for keys (${how ?? "read or timed"})`, async () => {
      const p = start(argv);
      await p.waitFor(ready, WAIT_MS);
      await waitFor(() => p.backend.foregroundTtyWait() !== null, WAIT_MS, `${name} reading the tty`);
      // htop's ncurses also reads with no time limit between its timed polls: either is right.
      if (how !== null) expect(p.backend.foregroundTtyWait()).toBe(how);
      expect(p.backend.foregroundWatchesTty()).toBe(true);
    });
  }

  test("sleep (nanosleep) does not wait for keys", async () => {
    const p = start(["sh", "-c", "echo ready; exec sleep 30"]);
    await p.waitFor(/ready/, WAIT_MS);
    await waitFor(() => sleepsIn(p.backend.pid, /nanosleep/), WAIT_MS, "sleep in nanosleep");
    expect(p.backend.foregroundTtyWait()).toBeNull();
    // Nor does it listen to the terminal at all: text before it that looks like a prompt is none.
    expect(p.backend.foregroundWatchesTty()).toBe(false);
  });

  test("a program on the CPU does not wait for keys", async () => {
    const p = start(["python3", "-c", "print('spinning', flush=True)\nwhile True: pass"]);
    await p.waitFor(/spinning/, WAIT_MS);
    expect(p.backend.foregroundTtyWait()).toBeNull();
    expect(p.backend.foregroundWatchesTty()).toBe(false);
  });

  const mixed: Array<[string, string]> = [
    ["select", "select.select([0, r], [], [])"],
    ["poll", "q = select.poll(); q.register(0, select.POLLIN); q.register(r, select.POLLIN); q.poll()"],
  ];
  for (const [call, code] of mixed) {
    test(`${call} over the tty and a pipe does not count (it waits for either, as ssh does)`, async () => {
      const script = `import os, select\nr, w = os.pipe()\nprint('waiting', flush=True)\n${code}`;
      const p = start(["python3", "-c", script]);
      await p.waitFor(/waiting/, WAIT_MS);
      await waitFor(() => sleepsIn(p.backend.pid, POLLING), WAIT_MS, `python in ${call}`);
      expect(p.backend.foregroundTtyWait()).toBeNull();
      // It listens to the terminal among other things: a prompt it printed may be a question.
      expect(p.backend.foregroundWatchesTty()).toBe(true);
    });
  }

  test("epoll over the tty and a listening socket does not count", async () => {
    const script = [
      "import select, socket",
      "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()",
      "e = select.epoll(); e.register(0, select.EPOLLIN); e.register(s.fileno(), select.EPOLLIN)",
      "print('waiting', flush=True)",
      "e.poll()",
    ].join("\n");
    const p = start(["python3", "-c", script]);
    await p.waitFor(/waiting/, WAIT_MS);
    await waitFor(() => sleepsIn(p.backend.pid, /epoll/), WAIT_MS, "python in epoll_wait");
    expect(p.backend.foregroundTtyWait()).toBeNull();
    expect(p.backend.foregroundWatchesTty()).toBe(true);
  });

  test("a pipeline waits for keys while its first program reads the tty and the rest read a pipe", async () => {
    const p = start(["sh", "-c", "echo ready; cat | cat"]);
    await p.waitFor(/ready/, WAIT_MS);
    await waitFor(() => p.backend.foregroundTtyWait() === "read", WAIT_MS, "cat | cat reading the tty");
  });
});

/**
 * What a command really runs. `sudo -u root env FOO=1 nice -n 5 rm -rf /` runs `rm -rf /`; the
 * guard judges that, not `sudo`. Shells given a script (`bash -c '…'`, `sh <<EOF`, `eval …`)
 * run another line, which is parsed and judged in turn.
 */
import { parseShellLine, type ParsedLine, type SimpleCommand } from "./parse.ts";
import { pipelineText } from "./piped-text.ts";
import { remoteLine, runsRemoteStdin } from "./remote.ts";
import { codeShellLines, programText } from "./one-liners.ts";
import { withPositional } from "./positional.ts";
import { findExecLines, foundPaths, withXargsInput, xargsItems } from "./find-exec.ts";
import { runnerLines } from "./line-runners.ts";
import { deferredLines, environmentCommands } from "./deferred-lines.ts";
import { scheduledCommands } from "./cron-lines.ts";
import { recordWrites, writtenScript } from "./written-scripts.ts";

/** A program about to run, after its wrappers are peeled off. */
export interface Invocation {
  /** argv[0] is the program's base name (`/usr/bin/rm` → `rm`). */
  argv: string[];
  /** The parsed command it came from (for redirections and standard input). */
  source: SimpleCommand;
  /** The script it hands to a shell or `eval`, parsed (its functions count for the fork-bomb rule). */
  script?: ParsedLine;
  /** That script's text, judged again with its own variables and substitutions expanded (classify.ts). */
  scriptText?: string;
  /**
   * It runs on another host or in a container (`ssh host …`, `kubectl exec …`): a server others use,
   * where stopping a service or killing its processes is an outage, not a developer's own business.
   */
  remote?: boolean;
}

/**
 * Options that take a value, per wrapper, so the value is not mistaken for the wrapped command.
 * From each tool's manual page (sudo, doas, env, nice, ionice, time, timeout, stdbuf, xargs, …).
 */
const WRAPPERS: Record<string, { valued: string[]; positional?: number; joined?: boolean }> = {
  sudo: { valued: ["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R"] },
  doas: { valued: ["-u", "-C"] },
  env: { valued: ["-u", "-C", "--unset", "--chdir"] },
  nice: { valued: ["-n", "--adjustment"] },
  ionice: { valued: ["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"] },
  time: { valued: ["-f", "-o", "--format", "--output"] },
  command: { valued: [] },
  builtin: { valued: [] },
  exec: { valued: ["-a"] },
  nohup: { valued: [] },
  setsid: { valued: [] },
  stdbuf: { valued: ["-i", "-o", "-e", "--input", "--output", "--error"] },
  timeout: { valued: ["-s", "-k", "--signal", "--kill-after"], positional: 1 },
  xargs: {
    valued: [
      ...["-a", "-d", "-E", "-e", "-I", "-i", "-L", "-l", "-n", "-P", "-s"],
      ...["--arg-file", "--delimiter", "--max-args", "--max-procs", "--replace", "--max-lines", "--max-chars"],
    ],
  },
  busybox: { valued: [] },
  chroot: { valued: ["--userspec", "--groups"], positional: 1 },
  flock: { valued: ["-w", "-E", "--timeout", "--conflict-exit-code"], positional: 1 },
  watch: { valued: ["-n", "-d", "--interval"], joined: true },
  screen: { valued: ["-S", "-c", "-p", "-T", "-e", "-h", "-s", "-t", "-X"] },
  strace: { valued: ["-e", "-o", "-p", "-s", "-u"] },
  unbuffer: { valued: [] },
  // Schedulers, namespaces, privileges and sandboxes: each runs the command that follows it.
  toybox: { valued: [] },
  chrt: { valued: ["-T", "-P", "-D", "--sched-runtime", "--sched-period", "--sched-deadline"], positional: 1 },
  taskset: { valued: [], positional: 1 },
  runuser: { valued: ["-u", "-g", "-G", "-s", "-w", "--user", "--group", "--supp-group", "--shell"] },
  nsenter: { valued: ["-t", "--target", "-S", "-G", "--setuid", "--setgid"] },
  unshare: { valued: ["-S", "-G", "-R", "-w", "--setuid", "--setgid", "--root", "--wd"] },
  setpriv: {
    valued: [
      ...["--reuid", "--regid", "--ruid", "--rgid", "--euid", "--egid", "--groups", "--inh-caps"],
      ...["--ambient-caps", "--bounding-set", "--securebits", "--pdeathsig", "--selinux-label"],
    ],
  },
  numactl: {
    valued: [
      ...["-C", "-N", "-m", "-p", "-i", "--physcpubind", "--cpunodebind", "--membind", "--preferred"],
      "--interleave",
    ],
  },
  prlimit: { valued: ["-p", "--pid"] },
  "systemd-run": {
    valued: [
      ...["-u", "--unit", "-p", "--property", "--description", "--slice", "-E", "--setenv", "-M"],
      ...["--machine", "--uid", "--gid", "--nice", "-H", "--host", "--working-directory", "--on-calendar"],
    ],
  },
  pkexec: { valued: ["--user"] },
  firejail: { valued: [] },
  gosu: { valued: [], positional: 1 },
  "su-exec": { valued: [], positional: 1 },
  cgexec: { valued: ["-g"] },
  caffeinate: { valued: ["-t", "-w"] },
  faketime: { valued: ["-f", "-m"], positional: 1 },
  eatmydata: { valued: [] },
  nocache: { valued: [] },
  torsocks: { valued: ["-u", "-p", "-a", "-P"] },
  proxychains: { valued: ["-f"] },
  proxychains4: { valued: ["-f"] },
  catchsegv: { valued: [] },
  ltrace: { valued: ["-e", "-o", "-p", "-s", "-u", "-n"] },
  valgrind: { valued: [] },
  trickle: { valued: ["-d", "-u", "-w", "-t", "-l", "-n"] },
  "flatpak-spawn": { valued: [] },
  // Hands ssh its password: the command after it is the ssh that runs.
  sshpass: { valued: ["-p", "-f", "-d", "-P"] },
  "host-spawn": { valued: [] },
  "dbus-launch": { valued: ["--config-file"] },
  "dbus-run-session": { valued: ["--config-file", "--dbus-daemon"] },
  "xvfb-run": { valued: ["-n", "-s", "-f", "-e", "-p", "--server-num", "--server-args"] },
  // runit's privilege changer, fake root and chroot-likes, agents and sandboxes that run what follows.
  chpst: { valued: ["-u", "-U", "-b", "-e", "-/", "-n", "-l", "-L", "-m", "-d", "-o", "-p", "-f", "-c"] },
  fakeroot: { valued: ["-l", "--lib", "--faked", "-s", "-i"] },
  proot: { valued: ["-r", "--rootfs", "-b", "--bind", "-w", "--pwd", "-q", "--qemu"] },
  "ssh-agent": { valued: ["-a", "-E", "-t", "-P"] },
  schroot: { valued: ["-c", "--chroot", "-u", "--user", "-d", "--directory"] },
  "lxc-execute": { valued: ["-n", "--name", "-f", "--rcfile", "-P", "--lxcpath"] },
  entr: { valued: [] },
};

/** Programs that run their `-c STRING` as a shell line (after a user or group name): su, runuser, sg, script. */
const COMMAND_OPTION_RUNNERS = new Set(["su", "runuser", "sg", "script", "ksu", "flock"]);
/** awk told to run each line it reads: `awk '{system($0)}' <<< '…'`, `… | awk '{print | "sh"}'`. */
function awkRunsInput(argv: string[]): boolean {
  if (!/^(awk|gawk|mawk|nawk)$/.test(argv[0] ?? "")) return false;
  const code = argv.slice(1).find((a) => !a.startsWith("-")) ?? "";
  return /system\(\s*\$0\s*\)|print\s*(\$0\s*)?\|\s*"(\/bin\/)?(ba)?sh"/.test(code);
}

/** Programs that run what they read on stdin as shell lines later: `echo 'rm …' | at now`. */
const STDIN_SCHEDULERS = new Set(["at", "batch"]);

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "busybox-sh"]);
/** Nesting deeper than this (`bash -c "bash -c …"` …) is judged as far as it goes. */
export const MAX_UNWRAP_DEPTH = 8;
const ENV_ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

export function baseName(program: string): string {
  const slash = program.lastIndexOf("/");
  return slash === -1 ? program : program.slice(slash + 1);
}

/** The wrapped command's argv, or null when `argv` is not a wrapper (or wraps nothing). */
function peel(argv: string[]): string[] | null {
  const name = baseName(argv[0] ?? "");
  const spec = WRAPPERS[name];
  if (!spec) return null;
  // `command -v rm` and `command -V rm` only look a program up.
  if (name === "command" && argv.some((a) => a === "-v" || a === "-V")) return [];
  let i = 1;
  let positional = spec.positional ?? 0;
  while (i < argv.length) {
    const a = argv[i]!;
    if (a === "--") {
      i++;
      break;
    }
    if (name === "env" && ENV_ASSIGNMENT.test(a)) {
      i++;
      continue;
    }
    const split = name === "env" ? envSplitString(argv, i) : null;
    if (split) return [...split.words, ...argv.slice(split.next)];
    if (a.startsWith("-") && a.length > 1) {
      const flag = a.includes("=") ? a.slice(0, a.indexOf("=")) : a;
      // Bundled short flags take a value when their last letter does (`screen -dmS name`, `sudo -iu root`).
      const bundledValue = /^-[a-zA-Z]{2,}$/.test(a) && spec.valued.includes(`-${a[a.length - 1]}`);
      i += (spec.valued.includes(flag) && !a.includes("=")) || bundledValue ? 2 : 1;
      continue;
    }
    // `nice -10 cmd` style numeric options were consumed above; the positional ones come next.
    if (positional > 0) {
      positional--;
      i++;
      continue;
    }
    break;
  }
  // `sudo -s`, `sudo -i` with no command: a root shell, reading what is piped to it.
  const shellFlag = argv.slice(1, i).some((a) => /^-[a-zA-Z]*[si][a-zA-Z]*$/.test(a));
  if ((name === "sudo" || name === "doas") && i >= argv.length && shellFlag) return ["sh"];
  return argv.slice(i);
}

/**
 * `env -S STRING` / `--split-string=STRING` (the `#!/usr/bin/env -S` form): STRING is split into
 * words, quotes honoured, and those words are the command. Null when argv[i] is not that option.
 */
function envSplitString(argv: string[], i: number): { words: string[]; next: number } | null {
  const a = argv[i]!;
  let value: string | undefined;
  let next = i + 1;
  if (a.startsWith("--split-string")) {
    if (a.includes("=")) value = a.slice(a.indexOf("=") + 1);
    else [value, next] = [argv[i + 1], i + 2];
  } else if (/^-[a-zA-Z0-9]*S/.test(a) && !a.startsWith("--")) {
    const rest = a.slice(a.indexOf("S") + 1);
    if (rest) value = rest;
    else [value, next] = [argv[i + 1], i + 2];
  } else return null;
  const words = parseShellLine(value ?? "").pipelines[0]?.[0]?.argv ?? [];
  return { words, next };
}

/**
 * The script a shell invocation runs: `-c STRING` (with the words after it as `$0`, `$1`, …), or
 * its standard input when given no file. Null when it runs none: `-n` (noexec) only reads it.
 */
function shellScript(argv: string[], stdin: string | null): string | null {
  if (argv.slice(1).some((a) => /^-[a-zA-Z]*n[a-zA-Z]*$/.test(a) && !a.startsWith("--"))) return null;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") break;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(a) || a === "--command")
      return withPositional(argv[i + 1] ?? "", argv.slice(i + 2));
    // `sh -s / <<< 'rm -rf "$1"'`: the script on stdin, the words after -s its positional parameters.
    if (/^-[a-zA-Z]*s[a-zA-Z]*$/.test(a) && stdin !== null) {
      const rest = argv.slice(i + 1);
      return withPositional(stdin, [argv[0]!, ...(rest[0] === "--" ? rest.slice(1) : rest)]);
    }
    // A script file is not ours to read, unless it names standard input (`bash /dev/stdin <<< …`).
    if (!a.startsWith("-") && !a.startsWith("+")) return STDIN_FILE.test(a) ? stdin : null;
  }
  return stdin;
}

/** The `-c STRING` of su, runuser, sg or script: a shell line run as another user (or recorded). */
function commandOption(argv: string[]): string | undefined {
  // `-c`, or bundled after flags (`su -lc '…'`, `script -qc '…'`).
  const c = argv.findIndex((a) => /^-[a-zA-Z]*c$/.test(a) || a === "--command");
  if (c !== -1) return argv[c + 1];
  return argv.find((a) => a.startsWith("--command="))?.slice("--command=".length);
}

/** The user's shell named by its variable: `$SHELL`, `${SHELL}`, `$BASH`, `$0` of an interactive shell. */
const SHELL_VARIABLE = /^(\$\{?(SHELL|BASH|0)\}?)$/;

/** Interpreters and the option that gives them a one-line program (one-liners.ts reads it there). */
const PROGRAM_FLAG: Record<string, string> = { python: "-c", perl: "-e", ruby: "-e", node: "-e", php: "-r", lua: "-e" };

/** The program an interpreter given no script file (or `-`) reads on standard input, when the line says it. */
function programOnStdin(program: string, args: string[], stdin: string | null): { flag: string; code: string } | null {
  const flag = PROGRAM_FLAG[program.replace(/[\d.]+$/, "")];
  if (flag === undefined || stdin === null) return null;
  if (args.some((a) => a === "-c" || a === "-e" || a === "-r" || a === "-E")) return null;
  const operands = args.filter((a) => !a.startsWith("-") || a === "-");
  return operands.length === 0 || operands[0] === "-" ? { flag, code: stdin } : null;
}

/** Files every new shell runs: `~/.bashrc`, `~/.profile`, `/etc/profile.d/x.sh`, `/etc/bash.bashrc` … */
const STARTUP_FILE = new RegExp(
  String.raw`(^|\/)\.(bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|kshrc)$|` +
    String.raw`^\/etc\/(profile(\.d\/.+)?|bash\.bashrc|zsh\/zshrc)$`,
);

/** The text a pipeline writes into a startup file (by `>`, `>>` or `tee`), when the line says what it is. */
function startupText(stages: SimpleCommand[], cmd: SimpleCommand, argv: string[]): string[] {
  const tee = argv[0] === "tee";
  const intoStartup =
    cmd.redirects.some((r) => /^>>?$|^>\|$/.test(r.op) && STARTUP_FILE.test(r.target)) ||
    (tee && argv.slice(1).some((a) => STARTUP_FILE.test(a)));
  if (!intoStartup) return [];
  // What the command itself prints (`echo …`), or for tee what it is fed.
  const text = tee ? pipelineText(stages.slice(0, -1)) : pipelineText(stages);
  return text === null ? [] : [text];
}

/** Standard input named as a file. */
const STDIN_FILE = /^(\/dev\/stdin|\/dev\/fd\/0|\/proc\/self\/fd\/0)$/;

/**
 * Every program the line runs, wrappers peeled and nested scripts parsed, each with the pipeline
 * it stands in (index into it) so that rules can see what feeds it.
 */
export function invocations(line: ParsedLine, depth = 0): { inv: Invocation; pipeline: Invocation[]; index: number }[] {
  const out: { inv: Invocation; pipeline: Invocation[]; index: number }[] = [];
  if (depth > MAX_UNWRAP_DEPTH) return out;
  // Files the line writes with known text, for a later `sh FILE` or `./FILE` on the same line.
  const written = new Map<string, string>();
  for (const pipeline of line.pipelines) {
    const invs: Invocation[] = [];
    for (const [i, cmd] of pipeline.entries()) {
      for (const nested of cmd.nested) out.push(...invocations(nested, depth + 1));
      const inv = resolve(cmd, depth, out, pipelineText(pipeline.slice(0, i)), foundPaths(invs));
      invs.push(inv);
      const program = inv.argv[0] ?? "";
      const script = writtenScript(cmd, SHELLS.has(program) || program === "source" || program === ".", written);
      if (script !== null) out.push(...invocations(parseShellLine(script), depth + 1));
      // `alias x='rm -rf /'; x`: an alias's text is a line the shell will run when it is typed.
      if (program === "alias") {
        for (const body of inv.argv.slice(1).map((a) => /^[^=\s]+=(.+)$/s.exec(a)?.[1])) {
          if (body) out.push(...invocations(parseShellLine(body), depth + 1));
        }
      }
      // `echo 'rm -rf ~' >> ~/.bashrc`: text written into a shell's startup file runs in every new shell.
      // `echo '0 3 * * * rm -rf /var/backups' | crontab -`: a cron entry's command runs later, unattended.
      const later = [
        ...startupText(pipeline.slice(0, i + 1), cmd, inv.argv),
        ...scheduledCommands(pipeline.slice(0, i + 1), cmd, inv.argv),
      ];
      for (const line of later) {
        out.push(...invocations(parseShellLine(line), depth + 1));
      }
      // `trap '…' EXIT`, `bind -x`, a git alias running `!…`: lines run later, judged now.
      for (const line of [
        ...deferredLines(inv.argv),
        ...(inv.argv.length > 0 ? environmentCommands(cmd.env ?? []) : []),
      ]) {
        out.push(...invocations(parseShellLine(line), depth + 1));
      }
      // `find DIR … -exec CMD {} +` runs CMD on what lies under DIR: judged as CMD given DIR.
      for (const line of findExecLines(inv.argv)) out.push(...invocations(parseShellLine(line), depth + 1));
    }
    for (const [index, inv] of invs.entries()) out.push({ inv, pipeline: invs, index });
    recordWrites(pipeline, written);
  }
  return out;
}

/**
 * Peels wrappers off `cmd`; scripts it hands to a shell or `eval` are parsed into `out`. `piped`
 * is what the commands before it in the pipe print, when the line alone says (piped-text.ts).
 */
function resolve(
  cmd: SimpleCommand,
  depth: number,
  out: ReturnType<typeof invocations>,
  piped: string | null,
  found: string | null,
): Invocation {
  let argv = cmd.argv;
  for (let n = 0; n < MAX_UNWRAP_DEPTH; n++) {
    // `su -c '…'` runs its string as a shell line, not the words after it.
    if (COMMAND_OPTION_RUNNERS.has(baseName(argv[0] ?? "")) && commandOption(argv) !== undefined) break;
    const inner = peel(argv);
    if (inner === null) break;
    // xargs appends the words it reads to the command: `echo / | xargs rm -rf` is `rm -rf /`, and
    // `find /etc … | xargs rm -rf` removes what lies under /etc.
    const name = baseName(argv[0]!);
    const input = name === "xargs" ? (cmd.stdin ?? piped ?? found) : null;
    const read = input === null ? { items: [], replace: "{}" } : xargsItems(argv, input);
    argv = withXargsInput(inner, read.items, read.replace);
    // watch hands its words, joined, to `sh -c`: `watch 'rm -rf /'` is a line, not a program name.
    if (WRAPPERS[name]?.joined && argv.length > 0) {
      out.push(...invocations(parseShellLine(argv.join(" ")), depth + 1));
      return { argv: [], source: cmd };
    }
  }
  // Assignments after a wrapper (`sudo FOO=1 rm …`) are not the program either.
  while (argv.length > 1 && ENV_ASSIGNMENT.test(argv[0]!)) argv = argv.slice(1);
  // `$SHELL -c …`, `"$BASH" -c …`: the user's shell by its variable.
  const program = SHELL_VARIABLE.test(argv[0] ?? "") ? "sh" : baseName(argv[0] ?? "");
  // `xterm -e rm -rf /`, `parallel rm -rf ::: /`: the lines they run, judged as typed.
  const runs = depth < MAX_UNWRAP_DEPTH ? runnerLines(program, argv.slice(1), cmd.stdin ?? piped) : null;
  if (runs !== null) {
    for (const line of runs) out.push(...invocations(parseShellLine(line), depth + 1));
    return { argv: [program, ...argv.slice(1)], source: cmd };
  }
  // `python3 - <<'E' … E`, `echo '…' | perl`: an interpreter reading its program on stdin runs that text.
  const stdinProgram = programOnStdin(program, argv.slice(1), cmd.stdin ?? piped);
  if (stdinProgram !== null) argv = [argv[0]!, stdinProgram.flag, stdinProgram.code];
  if (argv.length > 0 && depth < MAX_UNWRAP_DEPTH) {
    const runsScript = program === "eval" || program === "source" || program === "." || SHELLS.has(program);
    const sourced = program === "source" || program === ".";
    // `echo … | su`, `su - root <<< …`: su with no -c is a login shell reading its input.
    const suShell = program === "su" && commandOption(argv) === undefined ? (cmd.stdin ?? piped) : null;
    const script =
      suShell ??
      (program === "eval"
        ? argv.slice(1).join(" ")
        : SHELLS.has(program)
          ? shellScript(argv, cmd.stdin ?? piped)
          : sourced && STDIN_FILE.test(argv[1] ?? "")
            ? (cmd.stdin ?? piped)
            : null);
    // `eval "$(echo … | base64 -d)"`, `sh -c "$(printf …)"`: the substitution's text is known, so is the script.
    for (const line of runsScript ? cmd.nested : []) {
      const text = line.pipelines.length === 1 ? pipelineText(line.pipelines[0]!) : null;
      if (text) out.push(...invocations(parseShellLine(text), depth + 1));
    }
    // Shell lines an interpreter's one-line program runs (`os.system("…")`, awk's `system("…")`).
    const code = programText([program, ...argv.slice(1)]);
    for (const line of code === null ? [] : codeShellLines(code, program)) {
      out.push(...invocations(parseShellLine(line), depth + 1));
    }
    // `ssh host bash -s < <(echo '…')`: standard input read from a process substitution whose text is known.
    const fromProcess =
      cmd.redirects.some((r) => r.op === "<" && r.target === "") && cmd.nested.length === 1
        ? cmd.nested[0]!.pipelines.length === 1
          ? pipelineText(cmd.nested[0]!.pipelines[0]!)
          : null
        : null;
    const scheduled =
      (STDIN_SCHEDULERS.has(program) && !argv.includes("-f")) || runsRemoteStdin(argv) || awkRunsInput(argv)
        ? (cmd.stdin ?? piped ?? fromProcess)
        : null;
    const elsewhere = remoteLine(argv);
    const text =
      script || (COMMAND_OPTION_RUNNERS.has(program) ? commandOption(argv) : undefined) || scheduled || elsewhere;
    if (text) {
      const parsed = parseShellLine(text);
      const before = out.length;
      out.push(...invocations(parsed, depth + 1));
      // What ssh or a container's exec runs (given as words or fed on standard input) runs there.
      const remote = (text === elsewhere || (text === scheduled && runsRemoteStdin(argv))) && !script;
      for (const x of remote ? out.slice(before) : []) x.inv.remote = true;
      return { argv: [program, ...argv.slice(1)], source: cmd, script: parsed, scriptText: text };
    }
  }
  return { argv: argv.length > 0 ? [program, ...argv.slice(1)] : [], source: cmd };
}

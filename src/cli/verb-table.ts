/**
 * The CLI's verbs: each name and the module that runs it, imported lazily so the stdio server's
 * cold start stays small. Apart from src/cli.ts (the entry point, which runs on import) so that
 * docs/cli.md can be checked against this table (test/unit/docs-cli.test.ts).
 */
export type Verb = (args: string[]) => Promise<number>;

export const VERBS: Record<string, Verb> = {
  async serve(args) {
    const { runServeCommand } = await import("../mcp/serve.ts");
    return runServeCommand(args);
  },
  async web(args) {
    const { runWebCommand } = await import("../web/web-command.ts");
    return runWebCommand(args);
  },
  async daemon(args) {
    const { runDaemonCommand } = await import("../daemon/main.ts");
    return runDaemonCommand(args);
  },
  async ls(args) {
    const { runLs } = await import("../daemon/main.ts");
    return runLs(args);
  },
  async kill(args) {
    const { runKill } = await import("../daemon/main.ts");
    return runKill(args);
  },
  async attach(args) {
    const { runAttach } = await import("../attach/attach.ts");
    return runAttach(args);
  },
  async log(args) {
    const { runLog } = await import("../audit/log-command.ts");
    return runLog(args);
  },
  // Hidden: the launcher step of a sandboxed session (src/backend/local/sandbox/launcher.ts), not for people.
  async __sandbox(args) {
    const { runSandboxLauncher } = await import("../backend/local/sandbox/launcher.ts");
    return runSandboxLauncher(args);
  },
  async bridge(args) {
    const { runBridge } = await import("../daemon-client/bridge.ts");
    return runBridge(args);
  },
  async guard(args) {
    return (await import("../guard/check-command.ts")).runGuardCommand(args);
  },
  async doctor(args) {
    const { runDoctor } = await import("../doctor/command.ts");
    return runDoctor(args);
  },
  async install(args) {
    const { runInstallCommand } = await import("../install/command.ts");
    return runInstallCommand(args);
  },
  /** Hidden: the controlling-terminal step of local sessions where `setsid --ctty` is missing. */
  async "__pty-exec"(args) {
    const { runPtyExec } = await import("../backend/local/pty/exec-verb.ts");
    return runPtyExec(args);
  },
};

/** The verbs a person may type (the hidden `__…` steps are ptyhub's own), for "did you mean". */
export const PUBLIC_VERBS = Object.keys(VERBS).filter((name) => !name.startsWith("__"));

#!/usr/bin/env bun
/**
 * ptyhub's command line: argv → one verb. With no verb it is the stdio MCP server, which is what
 * MCP clients launch. Each verb's module is imported lazily so the server's cold start stays small.
 */
import { VERSION } from "./version.ts";
import { AppError } from "./api/errors.ts";
import { EXIT_USAGE, UsageError } from "./util/verb-args.ts";
import { closestWord } from "./util/did-you-mean.ts";
import { PUBLIC_VERBS, VERBS } from "./cli/verb-table.ts";

const HELP = `ptyhub ${VERSION} — real, persistent terminals for AI agents over MCP

Usage:
  ptyhub                          stdio MCP server (what an MCP client launches)
  ptyhub serve --http [--host 127.0.0.1] [--port 6420]
                                  MCP over Streamable HTTP at /mcp (bearer token, Origin checked)
  ptyhub web [--port N | --url URL]
                                  a one-time link that logs a browser in to serve --http's web view
  ptyhub daemon [--status|--stop] the session host; normally started on demand
  ptyhub ls [--json]              list persistent sessions
  ptyhub attach SESSION [--resize]
                                  watch and type into a live session; ctrl+\\ detaches
  ptyhub kill SESSION [--signal TERM|KILL|HUP]
                                  close a persistent session
  ptyhub log SESSION [--follow] [--json]
                                  the session's audit trail: who typed what, when, exit codes
  ptyhub bridge [--no-start]      (used over SSH) pipe stdio to this user's daemon, starting it
  ptyhub guard check [--cwd DIR] [--json] LINE…
                                  whether the guard would stop each line, by which rule, and why
  ptyhub doctor [--json]          a self-check in seconds: PTYs, shells, the daemon, sandbox, clients,
                                  ssh-agent, container engines, config; ok/warn/fail with what to do
  ptyhub install [CLIENT] [--project] [--dry-run] [--uninstall] [--approve-tools] [--http URL]
                                  register with claude-code, claude-desktop, cursor, vscode, windsurf, codex
  ptyhub --version | -V | --help
  ptyhub VERB --help              a verb's own options

Logs go to stderr; set PTYHUB_LOG_LEVEL=debug|info|warn|error (default warn).
`;

/** What a person who starts the stdio server by hand in a terminal reads: it is not hung, it waits for a client. */
const STDIO_GREETING = `ptyhub ${VERSION}: an MCP server on stdio, waiting for an MCP client to speak JSON-RPC here.
An MCP client launches it itself; register it with one:  ptyhub install   (or: claude mcp add -s user ptyhub -- ptyhub)
Commands: ptyhub --help. Quit: ctrl+c.
`;

/** The tools' hints are for agents (an MCP tool name is how they act); a person reads the verbs. */
const HUMAN_HINT = "`ptyhub ls` lists the persistent sessions; an agent opens new ones through its MCP client.";

function hintForHumans(err: AppError): string {
  return /\bterm_[a-z]+\b/.test(err.hint) ? HUMAN_HINT : err.hint;
}

async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === "--version" || first === "-V" || first === "-v" || first === "version") {
    process.stdout.write(`ptyhub ${VERSION}\n`);
    return 0;
  }
  if (first === "--help" || first === "-h" || first === "help") {
    process.stdout.write(HELP);
    return 0;
  }
  if (first === undefined || first === "mcp" || first === "stdio") {
    // A person who runs it in a terminal sees a sign of life (on stderr: stdout is the protocol's).
    if (process.stdin.isTTY) process.stderr.write(STDIO_GREETING);
    const { runStdioServer } = await import("./mcp/stdio.ts");
    await runStdioServer();
    return 0;
  }
  const verb = VERBS[first];
  if (!verb) {
    const guess = closestWord(first, PUBLIC_VERBS);
    const suggestion = guess === undefined ? "" : ` — did you mean 'ptyhub ${guess}'?`;
    process.stderr.write(`ptyhub: unknown command '${first}'${suggestion}\n\n${HELP}`);
    return EXIT_USAGE;
  }
  return verb(rest);
}

// This file is only ever an entry point (bun src/cli.ts, the package's bin, the compiled binary), so it
// runs unconditionally. It must not ask `import.meta.main`: in binaries compiled through the
// Bun.build() API for Windows that is false (the entry is B:/~BUN/root/plain-api, oven-sh/bun#30084),
// and the released exe then did nothing at all.
// `ptyhub ls | head`: a reader that goes away is not an error worth a stack trace.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(0);
  throw err;
});
main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(err.render());
      process.exitCode = EXIT_USAGE;
      return;
    }
    const msg =
      err instanceof AppError
        ? `${err.code}: ${err.message}${err.hint ? `\nhint: ${hintForHumans(err)}` : ""}`
        : String(err instanceof Error ? err.stack : err);
    process.stderr.write(`ptyhub: ${msg}\n`);
    process.exitCode = 1;
  },
);

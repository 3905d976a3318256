/**
 * Logging to stderr (or the daemon's log file). stdout belongs to the MCP protocol, so nothing
 * here may ever write to it. Each line carries a component tag.
 */

type Level = "debug" | "info" | "warn" | "error";
const LEVELS: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

let threshold = LEVELS[(process.env.PTYHUB_LOG_LEVEL as Level) ?? "warn"] ?? LEVELS.warn;
let sink: (line: string) => void = (line) => process.stderr.write(line);

export function setLogLevel(level: Level): void {
  threshold = LEVELS[level];
}

/** Redirects log lines, e.g. to the daemon's log file. */
export function setLogSink(write: (line: string) => void): void {
  sink = write;
}

export interface Logger {
  debug(msg: string, extra?: unknown): void;
  info(msg: string, extra?: unknown): void;
  warn(msg: string, extra?: unknown): void;
  error(msg: string, extra?: unknown): void;
}

export function logger(component: string): Logger {
  const emit = (level: Level, msg: string, extra?: unknown) => {
    if (LEVELS[level] < threshold) return;
    const tail =
      extra === undefined
        ? ""
        : " " + (extra instanceof Error ? (extra.stack ?? extra.message) : JSON.stringify(extra));
    sink(`${new Date().toISOString()} ${level} [${component}] ${msg}${tail}\n`);
  };
  return {
    debug: (m, e) => emit("debug", m, e),
    info: (m, e) => emit("info", m, e),
    warn: (m, e) => emit("warn", m, e),
    error: (m, e) => emit("error", m, e),
  };
}

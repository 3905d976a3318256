/** The errors with which the daemon refuses a client, each saying what to do instead. */
import { AppError } from "../api/errors.ts";

/**
 * Why a program inside one of the daemon's sessions may not use it: through the daemon, a model
 * could read what another session shows (a secret typed there) or type, as the human, what the
 * human declined (issue 23).
 */
export function insideSessionError(session: string): AppError {
  return new AppError(
    "DAEMON_UNAVAILABLE",
    `this ptyhub daemon refuses connections from programs running inside its own sessions ` +
      `(this one runs in session ${session}): ptyhub attach, ls and the MCP server cannot be driven from a session`,
    "Run ptyhub from a terminal of your own, outside ptyhub's sessions; the agent uses the MCP tools it was given.",
    false,
  );
}

/** Why a client that could not prove the user's key (pipe-auth.ts) is sent away. */
export function unprovenClientError(keyFile: string, why: string): AppError {
  return new AppError(
    "DAEMON_UNAVAILABLE",
    `this ptyhub daemon serves only clients that prove they hold its user's key (${keyFile}); ${why}`,
    "Run ptyhub as the user who started the daemon, with the same XDG_STATE_HOME (or profile directory).",
    false,
  );
}

/**
 * What the session manager needs to open a serial session: the request checked (before a
 * session id is reserved), then the line opened. The backend module (bun:ffi) loads on first use.
 */
import { AppError } from "../errors.ts";
import type { Backend } from "../backend/backend.ts";
import type { Integration, ShellFamily } from "../terminal/shell-integration.ts";
import type { OpenParams } from "../session/manager.ts";
import { parseSerialSpec, type SerialSpec } from "./settings.ts";

/** term_open's params with `serial`: the spec, or INVALID_ARGUMENT for what a line cannot take. */
export function checkSerialOpen(p: OpenParams): SerialSpec {
  if (p.ssh !== undefined) {
    throw new AppError(
      "INVALID_ARGUMENT",
      "`serial` and `ssh` cannot be combined",
      "Open one session per line or host.",
    );
  }
  for (const key of ["command", "args", "cwd", "env"] as const) {
    if (p[key] !== undefined) {
      throw new AppError(
        "INVALID_ARGUMENT",
        `\`${key}\` does not apply to a serial session`,
        "A serial line has whatever runs on the device at its other end: type into it with term_send " +
          "(or term_exec once a shell answers).",
      );
    }
  }
  return parseSerialSpec(p.serial ?? {});
}

export interface SerialStarted {
  kind: "serial";
  target: string;
  backend: Backend;
  integration: Integration;
  family: ShellFamily | null;
  cwd: string | null;
}

export async function serialStart(spec: SerialSpec): Promise<SerialStarted> {
  const { openSerialBackend } = await import("../backend/serial.ts");
  const backend = await openSerialBackend(spec);
  // No integration yet: term_exec installs markers once it finds a shell at the other end.
  return { kind: "serial", target: backend.target, backend, integration: "none", family: null, cwd: null };
}

/**
 * A serial session's request checked before a session id is reserved (the line itself is opened
 * by the serial kind, src/backend/serial/kind.ts, which loads the bun:ffi module on first use).
 */
import { AppError } from "../../api/errors.ts";
import type { HostParams } from "../../api/table.ts";
import { parseSerialSpec, type SerialSpec } from "./settings.ts";

/** term_open's params with `serial`: the spec, or INVALID_ARGUMENT for what a line cannot take. */
export function checkSerialOpen(
  p: Omit<HostParams<"open">, "serial"> & { serial?: Record<string, unknown> },
): SerialSpec {
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

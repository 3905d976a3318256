/**
 * The serial kind: a serial line; no program is started, whatever answers at the other end is the
 * session. The bun:ffi binding loads with the first line opened.
 */
import type { KindDescriptor, OpenedBackend } from "../descriptor.ts";
import { checkSerialOpen } from "./check-open.ts";
import type { SerialSpec } from "./settings.ts";

async function openSerial(spec: SerialSpec): Promise<OpenedBackend> {
  const { openSerialBackend } = await import("./serial-backend.ts");
  const backend = await openSerialBackend(spec);
  // No integration yet: term_exec installs markers once it finds a shell at the other end.
  return {
    kind: "serial",
    target: backend.target,
    backend,
    integration: "none",
    family: null,
    cwd: null,
    description: `serial ${backend.target}`,
  };
}

export const serialKind: KindDescriptor = {
  name: "serial",
  hostFiles: false,
  takesClientEnv: false,
  localProcess: false,
  runsProgram: false,
  markersOnFirstExec: true,
  prepare(p) {
    // The line's settings are checked here, before the id is reserved: bad input changes nothing.
    const spec = checkSerialOpen(p);
    return async () => openSerial(spec);
  },
};

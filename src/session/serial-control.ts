/**
 * The host's serial operations: term_serial (settings, DTR/RTS, break, status) and the step
 * before term_exec on a serial session (markers for the shell at the far end, shell.ts).
 */
import { AppError } from "../api/errors.ts";
import type { Session } from "./session.ts";
import { MAX_BREAK_MS, SerialBackend, type LineStatus } from "../backend/serial/serial-backend.ts";
import { mergeLineSettings } from "../backend/serial/settings.ts";
import { ensureSerialShell } from "./serial-shell.ts";

/** Longest DTR/RTS pulse: reset pulses are 1–100 ms; bootloader entry may want a few seconds. */
export const MAX_PULSE_MS = 10_000;

export interface SerialParams {
  baud?: number;
  data_bits?: number;
  parity?: string;
  stop_bits?: number;
  flow?: string;
  dtr?: boolean;
  rts?: boolean;
  pulse_ms?: number;
  break_ms?: number;
}

export type SerialResult = LineStatus & { session: string };

function serialBackend(session: Session): SerialBackend {
  const b = session.backendHandle;
  if (!(b instanceof SerialBackend)) {
    throw new AppError(
      "INVALID_ARGUMENT",
      `session '${session.id}' is ${session.kind}, not a serial line`,
      "term_serial works on sessions opened with term_open {serial: {path}}; see term_list.",
    );
  }
  return b;
}

function checkMs(name: string, v: number | undefined, max: number): void {
  if (v !== undefined && (!Number.isInteger(v) || v < 0 || v > max)) {
    throw new AppError("INVALID_ARGUMENT", `${name} must be an integer from 0 to ${max}`, `e.g. ${name}: 100.`);
  }
}

/** term_serial: every argument is checked before anything changes on the line. */
export async function serialControl(session: Session, p: SerialParams): Promise<SerialResult> {
  const backend = serialBackend(session);
  session.assertAlive();
  for (const line of ["dtr", "rts"] as const) {
    if (p[line] !== undefined && typeof p[line] !== "boolean") {
      throw new AppError("INVALID_ARGUMENT", `${line} must be true or false`, `e.g. {${line}: false}.`);
    }
  }
  checkMs("break_ms", p.break_ms, MAX_BREAK_MS);
  checkMs("pulse_ms", p.pulse_ms, MAX_PULSE_MS);
  if (p.pulse_ms !== undefined && p.dtr === undefined && p.rts === undefined) {
    throw new AppError(
      "INVALID_ARGUMENT",
      "pulse_ms needs dtr and/or rts: the level to hold during the pulse",
      "e.g. {dtr: false, pulse_ms: 100} holds DTR low for 100 ms, then raises it (a typical reset).",
    );
  }
  const changesLine = [p.baud, p.data_bits, p.parity, p.stop_bits, p.flow].some((v) => v !== undefined);
  const settings = changesLine ? mergeLineSettings(backend.lineSettings(), { ...p }) : undefined;
  session.touch();
  const status = await backend.control({ settings, dtr: p.dtr, rts: p.rts, pulseMs: p.pulse_ms, breakMs: p.break_ms });
  return { session: session.id, ...status };
}

/** Before term_exec on a serial session: the far end's shell gets markers (once per reopen). */
export async function prepareSerialExec(session: Session, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const backend = serialBackend(session);
  await ensureSerialShell(session, { generation: backend.generation, baud: backend.baud }, timeoutMs, signal);
}

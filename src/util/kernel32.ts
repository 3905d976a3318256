/**
 * The kernel32 calls a Windows pseudo console needs, through bun:ffi, and the x64 layouts of the
 * structs they take (from the Windows SDK headers: processthreadsapi.h, consoleapi.h, winnt.h).
 * Handles are pointer-sized: carried as bigint so no bit is lost. Loaded on first use only: the
 * library exists only on Windows.
 */
import { dlopen, FFIType, ptr, type Pointer } from "bun:ffi";

const SYMBOLS = {
  CreatePipe: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
  CreatePseudoConsole: {
    args: [FFIType.u32, FFIType.u64, FFIType.u64, FFIType.u32, FFIType.ptr],
    returns: FFIType.i32,
  },
  ResizePseudoConsole: { args: [FFIType.u64, FFIType.u32], returns: FFIType.i32 },
  ClosePseudoConsole: { args: [FFIType.u64], returns: FFIType.void },
  InitializeProcThreadAttributeList: {
    args: [FFIType.ptr, FFIType.u32, FFIType.u32, FFIType.ptr],
    returns: FFIType.i32,
  },
  UpdateProcThreadAttribute: {
    args: [FFIType.ptr, FFIType.u32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.ptr, FFIType.ptr],
    returns: FFIType.i32,
  },
  DeleteProcThreadAttributeList: { args: [FFIType.ptr], returns: FFIType.void },
  CreateProcessW: {
    args: [
      FFIType.ptr,
      FFIType.ptr,
      FFIType.ptr,
      FFIType.ptr,
      FFIType.i32,
      FFIType.u32,
      FFIType.ptr,
      FFIType.ptr,
      FFIType.ptr,
      FFIType.ptr,
    ],
    returns: FFIType.i32,
  },
  ResumeThread: { args: [FFIType.u64], returns: FFIType.u32 },
  PeekNamedPipe: {
    args: [FFIType.u64, FFIType.ptr, FFIType.u32, FFIType.ptr, FFIType.ptr, FFIType.ptr],
    returns: FFIType.i32,
  },
  ReadFile: { args: [FFIType.u64, FFIType.ptr, FFIType.u32, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  WriteFile: { args: [FFIType.u64, FFIType.ptr, FFIType.u32, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  GetExitCodeProcess: { args: [FFIType.u64, FFIType.ptr], returns: FFIType.i32 },
  CloseHandle: { args: [FFIType.u64], returns: FFIType.i32 },
  CreateJobObjectW: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.u64 },
  SetInformationJobObject: { args: [FFIType.u64, FFIType.u32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
  AssignProcessToJobObject: { args: [FFIType.u64, FFIType.u64], returns: FFIType.i32 },
  TerminateJobObject: { args: [FFIType.u64, FFIType.u32], returns: FFIType.i32 },
  TerminateProcess: { args: [FFIType.u64, FFIType.u32], returns: FFIType.i32 },
  GetLastError: { args: [], returns: FFIType.u32 },
} as const;

export type Kernel32 = ReturnType<typeof dlopen<typeof SYMBOLS>>["symbols"];

let loaded: Kernel32 | null = null;

export function kernel32(): Kernel32 {
  loaded ??= dlopen("kernel32.dll", SYMBOLS).symbols;
  return loaded;
}

/** PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE: hands the pseudo console to CreateProcessW. */
export const PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE = 0x00020016n;
export const EXTENDED_STARTUPINFO_PRESENT = 0x00080000;
export const CREATE_UNICODE_ENVIRONMENT = 0x00000400;
export const CREATE_SUSPENDED = 0x00000004;
/** GetExitCodeProcess's answer while the process runs. */
export const STILL_ACTIVE = 259;
/** ReadFile/PeekNamedPipe on a pipe whose writer is gone (the pseudo console closed). */
export const ERROR_BROKEN_PIPE = 109;
export const STARTF_USESTDHANDLES = 0x00000100;

/** STARTUPINFOEXW on x64: STARTUPINFOW (104 bytes) and the attribute list pointer. */
export const STARTUPINFOEX_SIZE = 112;
export const STARTUPINFO_FLAGS_OFFSET = 60;
export const STARTUPINFOEX_ATTRIBUTES_OFFSET = 104;
/** PROCESS_INFORMATION: hProcess, hThread, dwProcessId, dwThreadId. */
export const PROCESS_INFORMATION_SIZE = 24;
/** JOBOBJECT_EXTENDED_LIMIT_INFORMATION on x64, and where BasicLimitInformation.LimitFlags sits. */
export const JOB_EXTENDED_LIMIT_SIZE = 144;
export const JOB_LIMIT_FLAGS_OFFSET = 16;
export const JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x2000;
export const JOB_OBJECT_EXTENDED_LIMIT_INFORMATION_CLASS = 9;

/** A COORD passed by value: X in the low 16 bits, Y in the high ones. */
export function coord(cols: number, rows: number): number {
  return ((rows & 0xffff) << 16) | (cols & 0xffff);
}

/** A NUL-terminated UTF-16LE string, for the W functions. */
export function wide(text: string): Uint16Array {
  const out = new Uint16Array(text.length + 1);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

export function pointerOf(buf: Uint8Array | Uint16Array | Uint32Array | BigUint64Array): Pointer {
  return ptr(buf);
}

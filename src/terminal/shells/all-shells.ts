/**
 * The POSIX shells ptyhub integrates with, one descriptor each (descriptor.ts). Adding a shell is
 * its descriptor file, its script files, and one line here.
 */
import { basename } from "node:path";
import { BASH } from "./bash.ts";
import { FISH } from "./fish.ts";
import { SH } from "./sh.ts";
import { ZSH } from "./zsh.ts";
import type { ShellDescriptor } from "./descriptor.ts";

export const SHELLS = [BASH, ZSH, FISH, SH] as const;

/** The POSIX shells' family names. */
export type PosixShellFamily = (typeof SHELLS)[number]["family"];

export const POSIX_SHELL_FAMILIES: readonly PosixShellFamily[] = SHELLS.map((s) => s.family);

const BY_NAME = new Map<string, PosixShellFamily>(SHELLS.flatMap((s) => s.names.map((n) => [n, s.family] as const)));
const BY_FAMILY = new Map<string, ShellDescriptor<PosixShellFamily>>(SHELLS.map((s) => [s.family, s]));

/** The family of a shell named by its program (a path, or a login's `-zsh`), or null for any other program. */
export function shellFamilyOf(executable: string): PosixShellFamily | null {
  return BY_NAME.get(basename(executable).replace(/^-/, "")) ?? null;
}

/** The descriptor of a POSIX family; null for a Windows shell's or any other name. */
export function shellDescriptor(family: string | null): ShellDescriptor<PosixShellFamily> | null {
  return family === null ? null : (BY_FAMILY.get(family) ?? null);
}

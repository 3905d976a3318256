/**
 * Per-OS config locations shared by several clients. Paths are joined with the target platform's
 * separator, so a Windows layout stays a Windows path even when computed elsewhere (in tests).
 */
import { posix, win32 } from "node:path";
import type { InstallEnvironment } from "./types.ts";

export function joinFor(machine: InstallEnvironment, ...parts: string[]): string {
  return (machine.platform === "win32" ? win32 : posix).join(...parts);
}

/** `$XDG_CONFIG_HOME`, honoured only when absolute as the XDG spec requires, else `~/.config`. */
export function xdgConfigHome(machine: InstallEnvironment): string {
  const xdg = machine.env.XDG_CONFIG_HOME;
  return xdg && posix.isAbsolute(xdg) ? xdg : joinFor(machine, machine.home, ".config");
}

/**
 * Where Electron apps (Claude Desktop, VS Code) keep per-user data: Electron's `appData` path.
 * On Linux Electron follows XDG_CONFIG_HOME.
 */
export function electronAppData(machine: InstallEnvironment): string {
  switch (machine.platform) {
    case "darwin":
      return joinFor(machine, machine.home, "Library", "Application Support");
    case "win32":
      return machine.env.APPDATA || joinFor(machine, machine.home, "AppData", "Roaming");
    default:
      return xdgConfigHome(machine);
  }
}

/**
 * The serial ports present, for `term_list {serial_ports: true}`, found without udev tools.
 * Linux: /sys/class/tty entries backed by a device, minus phantom 8250 ports (`type` 0: the
 * driver reserved the slot but no UART answered); USB adapters get vendor/product/serial from
 * the USB device directory above them; by-id names come from /dev/serial/by-id where udev made
 * them. macOS: the /dev/cu.* call-out devices. `in_use`: a process holds the device open or
 * locked (/proc/locks, /proc/PID/fd), found without opening it (opening would pulse DTR, which
 * resets many boards).
 */
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";

export interface SerialPortInfo {
  path: string;
  by_id: string | null;
  description: string;
  usb: { vid: string; pid: string; serial: string | null } | null;
  in_use: boolean;
}

/** Where the system's views live; tests point these at a fake tree. */
export interface SystemRoots {
  sys: string;
  dev: string;
  proc: string;
}

const REAL_ROOTS: SystemRoots = { sys: "/sys", dev: "/dev", proc: "/proc" };

/** How far up from a tty's device the USB device directory can be (interface → device). */
const USB_WALK_MAX = 6;

function readText(path: string): string | null {
  try {
    return readFileSync(path, "utf8").trim();
  } catch {
    return null;
  }
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

export async function listSerialPorts(
  roots: SystemRoots = REAL_ROOTS,
  platform: NodeJS.Platform = process.platform,
): Promise<SerialPortInfo[]> {
  if (platform === "darwin") return listDarwin(roots);
  if (platform !== "linux") return [];
  const byId = byIdNames(roots);
  const held = heldDevices(roots);
  const ports: SerialPortInfo[] = [];
  const classDir = join(roots.sys, "class", "tty");
  for (const name of list(classDir).sort()) {
    const entry = join(classDir, name);
    if (!existsSync(join(entry, "device"))) continue; // virtual: consoles, ptys
    const type = readText(join(entry, "type"));
    if (type === "0") continue; // a phantom 8250 slot
    const path = join(roots.dev, name);
    const usb = usbInfo(entry);
    ports.push({
      path,
      by_id: byId.get(name) ?? null,
      description: describe(entry, name, usb),
      usb: usb ? { vid: usb.vid, pid: usb.pid, serial: usb.serial } : null,
      in_use: held.has(devKey(path)),
    });
  }
  return ports;
}

interface UsbInfo {
  vid: string;
  pid: string;
  serial: string | null;
  product: string | null;
  manufacturer: string | null;
}

function usbInfo(entry: string): UsbInfo | null {
  let dir: string;
  try {
    dir = realpathSync(join(entry, "device"));
  } catch {
    return null;
  }
  for (let i = 0; i < USB_WALK_MAX && dir !== "/"; i++, dir = dirname(dir)) {
    const vid = readText(join(dir, "idVendor"));
    const pid = readText(join(dir, "idProduct"));
    if (vid && pid) {
      const field = (name: string) => readText(join(dir, name));
      return { vid, pid, serial: field("serial"), product: field("product"), manufacturer: field("manufacturer") };
    }
  }
  return null;
}

function describe(entry: string, name: string, usb: UsbInfo | null): string {
  if (usb) return [usb.manufacturer, usb.product].filter(Boolean).join(" ") || `USB serial ${usb.vid}:${usb.pid}`;
  let driver = "";
  try {
    driver = basename(readlinkSync(join(entry, "device", "driver")));
  } catch {
    // No driver link: leave it out.
  }
  if (/^ttyS\d+$/.test(name)) return `built-in UART${driver ? ` (${driver})` : ""}`;
  if (/^ttyAMA\d+$/.test(name)) return "ARM PL011 UART";
  return driver ? `serial port (${driver})` : "serial port";
}

/** /dev/serial/by-id/NAME → the tty it points to. */
function byIdNames(roots: SystemRoots): Map<string, string> {
  const out = new Map<string, string>();
  const dir = join(roots.dev, "serial", "by-id");
  for (const link of list(dir)) {
    try {
      out.set(basename(readlinkSync(join(dir, link))), join(dir, link));
    } catch {
      // A dangling link: skip it.
    }
  }
  return out;
}

/** A device file's identity as /proc/locks and stat show it: "dev:inode". */
function devKey(path: string): string {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return "";
  }
}

/** glibc's makedev from the hex major:minor in /proc/locks. */
function makedev(major: number, minor: number): number {
  return ((major & 0xfff) << 8) | (minor & 0xff) | ((minor & ~0xff) << 12);
}

/**
 * Devices some process holds: flock'ed ones (from /proc/locks, any user) and, where readable,
 * ones open in a process (/proc/PID/fd: all processes as root, one's own otherwise).
 */
function heldDevices(roots: SystemRoots): Set<string> {
  const held = new Set<string>();
  const locks = readText(join(roots.proc, "locks")) ?? "";
  for (const m of locks.matchAll(/\b([0-9a-f]+):([0-9a-f]+):(\d+)\b/g)) {
    held.add(`${makedev(parseInt(m[1]!, 16), parseInt(m[2]!, 16))}:${m[3]}`);
  }
  for (const pid of list(roots.proc)) {
    if (!/^\d+$/.test(pid)) continue;
    const fdDir = join(roots.proc, pid, "fd");
    for (const fd of list(fdDir)) {
      let target: string;
      try {
        target = readlinkSync(join(fdDir, fd));
      } catch {
        continue;
      }
      if (target.startsWith("/dev/tty") || target.startsWith("/dev/cu.")) held.add(devKey(target));
    }
  }
  held.delete("");
  return held;
}

/** Who holds an flock on `path`: "picocom (pid 1234)", for the busy error; [] when unknown. */
export function lockHolders(path: string, roots: SystemRoots = REAL_ROOTS): string[] {
  const key = devKey(path);
  if (!key) return [];
  const out: string[] = [];
  const locks = readText(join(roots.proc, "locks")) ?? "";
  for (const m of locks.matchAll(/^\d+:\s+FLOCK\s+\S+\s+\S+\s+(\d+)\s+([0-9a-f]+):([0-9a-f]+):(\d+)/gm)) {
    if (`${makedev(parseInt(m[2]!, 16), parseInt(m[3]!, 16))}:${m[4]}` !== key) continue;
    const pid = m[1]!;
    const name = pid === String(process.pid) ? "this ptyhub" : (readText(join(roots.proc, pid, "comm")) ?? "a process");
    out.push(`${name} (pid ${pid})`);
  }
  return out;
}

/** Whether a process holds `path` open or locked (for the busy error's hint and `in_use`). */
export function portInUse(path: string, roots: SystemRoots = REAL_ROOTS): boolean {
  const key = devKey(path);
  return key !== "" && heldDevices(roots).has(key);
}

function listDarwin(roots: SystemRoots): SerialPortInfo[] {
  return list(roots.dev)
    .filter((n) => n.startsWith("cu.") && n !== "cu.Bluetooth-Incoming-Port")
    .sort()
    .map((n) => ({ path: join(roots.dev, n), by_id: null, description: n.slice(3), usb: null, in_use: false }));
}

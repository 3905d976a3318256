/**
 * Port discovery without udev tools. A fake /sys, /dev and /proc tree (what the kernel shows for
 * a built-in UART, a phantom 8250 slot, a USB adapter, a virtual console) makes the logic
 * deterministic; the real system is listed too, and a port held by a ptyhub session shows in_use.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { listSerialPorts, portInUse } from "../../src/backend/serial/enumerate.ts";
import { FfiBinding, optionsFromLine } from "../../src/backend/serial/port.ts";
import { DEFAULT_LINE } from "../../src/backend/serial/settings.ts";
import { ptyPair, tempDir, type Line } from "./helpers.ts";

function write(path: string, text: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text + "\n");
}

/** /proc/locks shows a device as hex major:minor of its file system, then the inode. */
function lockLine(path: string): string {
  const st = statSync(path);
  const major = (st.dev >> 8) & 0xfff;
  const minor = (st.dev & 0xff) | ((st.dev >> 12) & 0xfff00);
  const hex = (n: number) => n.toString(16).padStart(2, "0");
  return `1: FLOCK  ADVISORY  WRITE 4242 ${hex(major)}:${hex(minor)}:${st.ino} 0 EOF`;
}

function fakeSystem(): { sys: string; dev: string; proc: string } {
  const root = tempDir();
  const sys = join(root, "sys");
  const dev = join(root, "dev");
  const proc = join(root, "proc");
  const tty = join(sys, "class", "tty");
  // A built-in UART that answered (type 4: 16550A) and a phantom slot (type 0).
  for (const [name, type] of [
    ["ttyS0", "4"],
    ["ttyS1", "0"],
  ] as const) {
    const devdir = join(sys, "devices", "pnp0", name);
    mkdirSync(devdir, { recursive: true });
    write(join(tty, name, "type"), type);
    symlinkSync(devdir, join(tty, name, "device"));
  }
  // A USB adapter: tty → interface directory → USB device directory with the ids.
  const usbDev = join(sys, "devices", "pci0000:00", "usb1", "1-1");
  const usbIf = join(usbDev, "1-1:1.0", "ttyUSB0");
  mkdirSync(usbIf, { recursive: true });
  write(join(usbDev, "idVendor"), "0403");
  write(join(usbDev, "idProduct"), "6001");
  write(join(usbDev, "serial"), "A50285BI");
  write(join(usbDev, "manufacturer"), "FTDI");
  write(join(usbDev, "product"), "FT232R USB UART");
  mkdirSync(join(tty, "ttyUSB0"), { recursive: true });
  symlinkSync(usbIf, join(tty, "ttyUSB0", "device"));
  // A virtual console: no device link, not a serial port.
  mkdirSync(join(tty, "tty1"), { recursive: true });
  for (const name of ["ttyS0", "ttyS1", "ttyUSB0", "tty1"]) write(join(dev, name), "");
  mkdirSync(join(dev, "serial", "by-id"), { recursive: true });
  symlinkSync("../../ttyUSB0", join(dev, "serial", "by-id", "usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0"));
  write(join(proc, "locks"), lockLine(join(dev, "ttyUSB0")));
  return { sys, dev, proc };
}

const lines: Line[] = [];
afterAll(async () => {
  while (lines.length) await lines.pop()!.stop();
});

describe("serial port discovery", () => {
  test("sysfs: UARTs, USB adapters with ids and by-id names; no phantom slots or consoles; locks: in_use", async () => {
    const roots = fakeSystem();
    const ports = await listSerialPorts(roots, "linux");
    expect(ports).toEqual([
      { path: join(roots.dev, "ttyS0"), by_id: null, description: "built-in UART", usb: null, in_use: false },
      {
        path: join(roots.dev, "ttyUSB0"),
        by_id: join(roots.dev, "serial", "by-id", "usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0"),
        description: "FTDI FT232R USB UART",
        usb: { vid: "0403", pid: "6001", serial: "A50285BI" },
        in_use: true,
      },
    ]);
  });

  test("macOS: the /dev/cu.* call-out devices", async () => {
    const roots = fakeSystem();
    for (const n of ["cu.usbserial-A50285BI", "cu.Bluetooth-Incoming-Port", "tty.usbserial-A50285BI"])
      write(join(roots.dev, n), "");
    const ports = await listSerialPorts(roots, "darwin");
    expect(ports.map((p) => p.path)).toEqual([join(roots.dev, "cu.usbserial-A50285BI")]);
  });

  test("this machine: every listed port is a /dev node, never a phantom slot", async () => {
    const ports = await listSerialPorts();
    for (const p of ports) {
      expect(p.path.startsWith("/dev/")).toBe(true);
      const name = p.path.slice(5);
      const type = await Bun.file(`/sys/class/tty/${name}/type`)
        .text()
        .catch(() => "");
      expect(type.trim()).not.toBe("0");
    }
  });

  test("a port held by a ptyhub line is in use (its flock), and free again after close", async () => {
    const line = await ptyPair(tempDir());
    lines.push(line);
    expect(portInUse(line.path)).toBe(false);
    const port = await new FfiBinding().open(optionsFromLine(line.path, DEFAULT_LINE));
    expect(portInUse(line.path)).toBe(true);
    await port.close();
    expect(portInUse(line.path)).toBe(false);
  });
});

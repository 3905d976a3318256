import type { z } from "zod";
import { defineTool } from "../tool.ts";
import { serialInput, serialOutput } from "../../api/methods/serial.ts";

export const termSerial = defineTool({
  name: "term_serial",
  title: "Control a serial line",
  description:
    "For a serial session (term_open {serial}): change baud, data bits, parity, stop bits or flow control " +
    "on the fly; set DTR/RTS (many boards wire them to reset and boot-mode pins: {dtr: false, pulse_ms: 100} " +
    "pulses a reset); send a break (break_ms; Linux SysRq, Cisco ROMMON). With no arguments, reports the " +
    "settings and modem lines (null where the port has none).",
  input: serialInput,
  output: serialOutput,
  annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
  // Typed here: the host API table derives its own types from this tool's schemas.
  async run(args, ctx): Promise<z.output<typeof serialOutput>> {
    return ctx.host.call("serial", args, ctx);
  },
  text(r) {
    const p = { none: "N", even: "E", odd: "O", mark: "M", space: "S" }[r.parity] ?? "?";
    const lines = (["dtr", "rts", "cts", "dsr", "dcd", "ri"] as const)
      .filter((k) => r[k] !== null)
      .map((k) => `${k.toUpperCase()}=${r[k] ? 1 : 0}`)
      .join(" ");
    const flow = r.flow === "none" ? "" : ` ${r.flow}`;
    return `[${r.session} · ${r.baud} ${r.data_bits}${p}${r.stop_bits}${flow} · ${lines || "no modem lines"}]`;
  },
});

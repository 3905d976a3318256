import { z } from "zod";
import { defineTool } from "../tool.ts";
import { sessionId } from "../schemas.ts";

const line = z.boolean().nullable();

const output = z.object({
  session: z.string(),
  baud: z.number().int(),
  data_bits: z.number().int(),
  parity: z.string(),
  stop_bits: z.number().int(),
  flow: z.string(),
  dtr: line,
  rts: line,
  cts: line,
  dsr: line,
  dcd: line,
  ri: line,
});

export const termSerial = defineTool({
  name: "term_serial",
  title: "Control a serial line",
  description:
    "For a serial session (term_open {serial}): change baud, data bits, parity, stop bits or flow control " +
    "on the fly; set DTR/RTS (many boards wire them to reset and boot-mode pins: {dtr: false, pulse_ms: 100} " +
    "pulses a reset); send a break (break_ms; Linux SysRq, Cisco ROMMON). With no arguments, reports the " +
    "settings and modem lines (null where the port has none).",
  input: z.strictObject({
    session: sessionId,
    baud: z.number().int().min(50).max(16_000_000).optional().describe("New baud rate."),
    data_bits: z.union([z.literal(5), z.literal(6), z.literal(7), z.literal(8)]).optional(),
    parity: z.enum(["none", "even", "odd", "mark", "space"]).optional(),
    stop_bits: z.union([z.literal(1), z.literal(2)]).optional(),
    flow: z.enum(["none", "rtscts", "xonxoff"]).optional(),
    dtr: z.boolean().optional().describe("Set DTR (true: asserted)."),
    rts: z.boolean().optional().describe("Set RTS (true: asserted)."),
    pulse_ms: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .optional()
      .describe("With dtr/rts: hold that level this long, then set the line back."),
    break_ms: z.number().int().min(1).max(5000).optional().describe("Send a break of this length (250 is usual)."),
  }),
  output,
  annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
  // Typed here: the host API table derives its own types from this tool's schemas.
  async run(args, ctx): Promise<z.output<typeof output>> {
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

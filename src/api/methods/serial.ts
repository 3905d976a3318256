/** term_serial: a serial line's settings and modem lines. */
import { z } from "zod";
import { sessionId } from "../fields.ts";

export const serialInput = z.strictObject({
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
});

const line = z.boolean().nullable();

export const serialOutput = z.object({
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

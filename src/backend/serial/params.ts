/**
 * term_open's `serial` object as its schema: the one definition the tool lists, the daemon
 * validates, and the session manager's types come from (src/backend/serial/settings.ts then checks the
 * values a line can take).
 */
import { z } from "zod";

/** term_open's `serial` object (SPEC.md); checked again in src/backend/serial/settings.ts for daemon calls. */
export const serialParams = z.strictObject({
  path: z
    .string()
    .min(1)
    .max(4096)
    .describe("The device: /dev/ttyUSB0, /dev/serial/by-id/…; term_list {serial_ports: true} lists them."),
  baud: z.number().int().min(50).max(16_000_000).optional().describe("Baud rate (default 115200); custom rates too."),
  data_bits: z
    .union([z.literal(5), z.literal(6), z.literal(7), z.literal(8)])
    .optional()
    .describe("Default 8."),
  parity: z.enum(["none", "even", "odd", "mark", "space"]).optional().describe("Parity (default none)."),
  stop_bits: z
    .union([z.literal(1), z.literal(2)])
    .optional()
    .describe("Stop bits (default 1)."),
  flow: z.enum(["none", "rtscts", "xonxoff"]).optional().describe("Flow control (default none)."),
  newline: z.enum(["cr", "lf", "crlf"]).optional().describe("What Enter sends (default cr, what consoles expect)."),
  reconnect: z
    .boolean()
    .optional()
    .describe("When the device goes away (USB unplugged), wait and reopen it (state: reconnecting) instead of ending."),
});

/** term_open's `serial` object as it arrives (snake_case, defaults left out). */
export type SerialOpenParams = z.input<typeof serialParams>;

/** The `serial` field of term_open. */
export const serialOpenParam = serialParams.optional().describe("Open a serial line (a board's or router's console).");

import { z } from "zod";
import { defineTool } from "../tool.ts";
import { headerValue, stateEnum } from "../schemas.ts";
import { sshParams } from "./open.ts";

const output = z.object({
  sessions: z.array(
    z.object({
      session: z.string(),
      kind: z.enum(["local", "ssh", "serial"]),
      target: z.string(),
      state: stateEnum,
      alive: z.boolean(),
      exit_code: z.number().int().nullable(),
      persistent: z.boolean(),
      idle_ms: z.number().int(),
      created_at: z.string(),
      cols: z.number().int(),
      rows: z.number().int(),
      attached: z.boolean(),
      pid: z.number().int().nullable(),
      cwd: z.string().nullable(),
    }),
  ),
  remote_sessions: z
    .array(
      z.object({
        session: z.string(),
        state: z.string(),
        idle_ms: z.number().int(),
        created_at: z.string(),
        attached: z.boolean(),
      }),
    )
    .optional(),
  serial_ports: z
    .array(
      z.object({
        path: z.string(),
        by_id: z.string().nullable(),
        description: z.string(),
        usb: z.object({ vid: z.string(), pid: z.string(), serial: z.string().nullable() }).nullable(),
        in_use: z.boolean(),
      }),
    )
    .optional(),
});

export const termList = defineTool({
  name: "term_list",
  title: "List sessions",
  description:
    "List terminal sessions with their state (prompt, running, password, …), whether they are alive, exit codes and " +
    "idle time.",
  input: z.strictObject({
    ssh_host: z
      .union([z.string().min(1).max(255), sshParams])
      .optional()
      .describe(
        "Also list the persistent sessions on this host (an alias or term_open's ssh object), resumable with " +
          "term_open {ssh: {host, resume}}.",
      ),
    serial_ports: z
      .boolean()
      .optional()
      .describe("Also list the serial ports present (USB vendor/product/serial, by-id names, in use or not)."),
  }),
  output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const sessions = (await ctx.host.list(ctx)) as z.infer<typeof output>["sessions"];
    const out: z.infer<typeof output> = { sessions };
    if (args.serial_ports) {
      // The ports are this machine's, where the daemon runs too: no need to ask the host.
      const { listSerialPorts } = await import("../../backend/serial/enumerate.ts");
      out.serial_ports = await listSerialPorts();
    }
    if (args.ssh_host !== undefined) {
      // Loaded on first use: ssh2 is large, and most servers never list a remote host.
      const { listRemoteSessions } = await import("../../backend/remote/remote-list.ts");
      const ssh = typeof args.ssh_host === "string" ? { host: args.ssh_host } : args.ssh_host;
      out.remote_sessions = await listRemoteSessions(ssh, ctx);
    }
    return out;
  },
  text(r) {
    const ports = r.serial_ports ? serialPortsText(r.serial_ports) : "";
    const remote = r.remote_sessions?.length
      ? "\nremote: " +
        r.remote_sessions
          .map(
            (s) =>
              `${s.session} · ${s.state} · idle ${Math.round(s.idle_ms / 1000)}s${s.attached ? " · attached" : ""}`,
          )
          .join("\n        ")
      : r.remote_sessions
        ? "\n[no remote sessions]"
        : "";
    if (r.sessions.length === 0) return "[no sessions]" + ports + remote;
    return (
      r.sessions
        .map(
          (s) =>
            `${s.session} · ${s.kind} · ${headerValue(s.target)} · ` +
            `${s.alive ? s.state : `exited ${s.exit_code ?? "?"}`}${s.cwd ? ` · ${headerValue(s.cwd)}` : ""} · ` +
            `idle ${Math.round(s.idle_ms / 1000)}s` +
            `${s.persistent ? " · persistent" : ""}${s.attached ? " · attached" : ""}`,
        )
        .join("\n") +
      ports +
      remote
    );
  },
});

function serialPortsText(ports: NonNullable<z.infer<typeof output>["serial_ports"]>): string {
  if (ports.length === 0) return "\n[no serial ports]";
  const rows = ports.map((p) => {
    const usb = p.usb ? ` · usb ${p.usb.vid}:${p.usb.pid}${p.usb.serial ? ` serial ${p.usb.serial}` : ""}` : "";
    return `${p.path} · ${p.description}${usb}${p.by_id ? ` · ${p.by_id}` : ""}${p.in_use ? " · in use" : ""}`;
  });
  return `\n[serial ports]\n${rows.join("\n")}`;
}

import type { z } from "zod";
import { defineTool } from "../tool.ts";
import { listInput, listOutput } from "../../api/methods/list.ts";
import { headerValue } from "../result-text.ts";

export const termList = defineTool({
  name: "term_list",
  title: "List sessions",
  description:
    "List terminal sessions with their state (prompt, running, password, …), whether they are alive, exit codes and " +
    "idle time.",
  input: listInput,
  output: listOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const [sessions, notices] = await Promise.all([ctx.host.call("list", {}, ctx), ctx.host.notices?.() ?? []]);
    const out: z.infer<typeof listOutput> = { sessions };
    if (notices.length > 0) out.notices = notices;
    if (args.serial_ports) {
      // The ports are this machine's, where the daemon runs too: no need to ask the host.
      const { listSerialPorts } = await import("../../backend/serial/enumerate.ts");
      out.serial_ports = await listSerialPorts();
    }
    if (args.ssh_host !== undefined) {
      // Loaded on first use: ssh2 is large, and most servers never list a remote host.
      const { listRemoteSessions } = await import("../../backend/ssh/persist/remote-list.ts");
      const ssh = typeof args.ssh_host === "string" ? { host: args.ssh_host } : args.ssh_host;
      out.remote_sessions = await listRemoteSessions(ssh, ctx);
    }
    if (args.containers) {
      const { listContainers } = await import("../../backend/container/container-list.ts");
      const listing = await listContainers();
      if ("note" in listing) out.note = listing.note;
      else out.containers = listing.containers;
    }
    return out;
  },
  text(r) {
    const head = (r.notices ?? []).map((n) => `[${n}]\n`).join("");
    return head + sessionsText(r);
  },
});

/** The sessions, then the lists asked for (serial ports, containers, a host's remote sessions). */
function sessionsText(r: z.infer<typeof listOutput>): string {
  const ports = (r.serial_ports ? serialPortsText(r.serial_ports) : "") + containersText(r);
  const remote = r.remote_sessions?.length
    ? "\nremote: " +
      r.remote_sessions
        .map((s) => {
          const attached = s.attached ? " · attached" : "";
          return `${s.session} · ${s.state} · idle ${Math.round(s.idle_ms / 1000)}s${attached}`;
        })
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
}

function serialPortsText(ports: NonNullable<z.infer<typeof listOutput>["serial_ports"]>): string {
  if (ports.length === 0) return "\n[no serial ports]";
  const rows = ports.map((p) => {
    const usb = p.usb ? ` · usb ${p.usb.vid}:${p.usb.pid}${p.usb.serial ? ` serial ${p.usb.serial}` : ""}` : "";
    return `${p.path} · ${p.description}${usb}${p.by_id ? ` · ${p.by_id}` : ""}${p.in_use ? " · in use" : ""}`;
  });
  return `\n[serial ports]\n${rows.join("\n")}`;
}

function containersText(r: z.infer<typeof listOutput>): string {
  if (r.note) return `\n[${r.note}]`;
  if (!r.containers) return "";
  if (r.containers.length === 0) return "\n[no running containers]";
  const rows = r.containers.map((c) => `${c.name} · ${c.image} · ${c.engine} · ${c.id} · ${c.state}`);
  return `\n[containers]\n${rows.join("\n")}`;
}

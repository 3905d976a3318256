import { z } from "zod";
import { defineTool } from "../tool.ts";
import { stateEnum } from "../schemas.ts";
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
      z.object({ session: z.string(), state: z.string(), idle_ms: z.number().int(), created_at: z.string(), attached: z.boolean() }),
    )
    .optional(),
});

export const termList = defineTool({
  name: "term_list",
  title: "List sessions",
  description: "List terminal sessions with their state (prompt, running, password, …), whether they are alive, exit codes and idle time.",
  input: z.strictObject({
    ssh_host: z
      .union([z.string().min(1).max(255), sshParams])
      .optional()
      .describe("Also list the persistent sessions on this host (an alias or term_open's ssh object), resumable with term_open {ssh: {host, resume}}."),
  }),
  output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    const sessions = (await ctx.host.list(ctx)) as z.infer<typeof output>["sessions"];
    if (args.ssh_host === undefined) return { sessions };
    // Loaded on first use: ssh2 is large, and most servers never list a remote host.
    const { listRemoteSessions } = await import("../../remote/list.ts");
    const ssh = typeof args.ssh_host === "string" ? { host: args.ssh_host } : args.ssh_host;
    return { sessions, remote_sessions: await listRemoteSessions(ssh, ctx) };
  },
  text(r) {
    const remote = r.remote_sessions?.length
      ? "\nremote: " +
        r.remote_sessions
          .map((s) => `${s.session} · ${s.state} · idle ${Math.round(s.idle_ms / 1000)}s${s.attached ? " · attached" : ""}`)
          .join("\n        ")
      : r.remote_sessions
        ? "\n[no remote sessions]"
        : "";
    if (r.sessions.length === 0) return "[no sessions]" + remote;
    return r.sessions
      .map((s) => `${s.session} · ${s.kind} · ${s.target} · ${s.alive ? s.state : `exited ${s.exit_code ?? "?"}`}${s.cwd ? ` · ${s.cwd}` : ""} · idle ${Math.round(s.idle_ms / 1000)}s${s.persistent ? " · persistent" : ""}${s.attached ? " · attached" : ""}`)
      .join("\n") + remote;
  },
});

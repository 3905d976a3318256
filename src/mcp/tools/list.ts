import { z } from "zod";
import { defineTool } from "../tool.ts";
import { stateEnum } from "../schemas.ts";

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
});

export const termList = defineTool({
  name: "term_list",
  title: "List sessions",
  description: "List terminal sessions with their state (prompt, running, password, …), whether they are alive, exit codes and idle time.",
  input: z.strictObject({}),
  output,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(_args, ctx) {
    return { sessions: (await ctx.host.list(ctx)) as z.infer<typeof output>["sessions"] };
  },
  text(r) {
    if (r.sessions.length === 0) return "[no sessions]";
    return r.sessions
      .map((s) => `${s.session} · ${s.kind} · ${s.target} · ${s.alive ? s.state : `exited ${s.exit_code ?? "?"}`}${s.cwd ? ` · ${s.cwd}` : ""} · idle ${Math.round(s.idle_ms / 1000)}s${s.persistent ? " · persistent" : ""}${s.attached ? " · attached" : ""}`)
      .join("\n");
  },
});

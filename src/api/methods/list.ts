/** term_list: the sessions, and optionally a host's persistent ones and the serial ports. */
import { z } from "zod";
import { stateEnum } from "../fields.ts";
import { sshParams } from "../../backend/ssh/params.ts";
import { BACKEND_KINDS } from "../kinds.ts";

export const listInput = z.strictObject({
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
  containers: z
    .boolean()
    .optional()
    .describe("Also list the running containers of the default engine ($DOCKER_HOST, else Docker's socket)."),
});

export const listOutput = z.object({
  sessions: z.array(
    z.object({
      session: z.string(),
      kind: z.enum(BACKEND_KINDS),
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
  containers: z
    .array(
      z.object({
        name: z.string(),
        id: z.string(),
        image: z.string(),
        engine: z.enum(["docker", "podman"]),
        state: z.string(),
      }),
    )
    .optional(),
  /**
   * What the model should know about the daemon hosting the sessions: another version than this
   * server, settings changed since it started (each with what ends it). Absent when there is none.
   */
  notices: z.array(z.string()).optional(),
  /** Why a list that was asked for is missing (CONTAINER_UNAVAILABLE: no engine answers). */
  note: z.string().optional(),
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

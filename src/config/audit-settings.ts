/** The audit trail's settings (docs/safety.md, Audit trail). */
import { z } from "zod";

export const AuditConfigSchema = z
  .strictObject({
    /** Write a trail per session under $XDG_STATE_HOME/ptyhub/audit. */
    enabled: z.boolean().default(true),
    /** Trails of sessions older than this many days are deleted (0: kept forever). */
    retention_days: z.number().int().min(0).max(36_500).default(30),
    /** A trail file past this size is rotated (renamed with a numeric suffix) and a new one begun. */
    max_file_bytes: z
      .number()
      .int()
      .min(4096)
      .default(10 * 1024 * 1024),
    /** Also record each session's screen output in asciicast v2 (SESSION.cast), for `asciinema play`. */
    recording: z.boolean().default(false),
    /** A recording stops growing past this size (a marker event says so). */
    recording_max_bytes: z
      .number()
      .int()
      .min(4096)
      .default(50 * 1024 * 1024),
  })
  .default({
    enabled: true,
    retention_days: 30,
    max_file_bytes: 10 * 1024 * 1024,
    recording: false,
    recording_max_bytes: 50 * 1024 * 1024,
  });

/**
 * The sandbox modes of term_open, in a module of their own with no imports: the tools' schemas
 * (and through them the host API table and the daemon client) need the names, not the launcher.
 */
export const SANDBOX_MODES = ["none", "read-only", "workspace"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

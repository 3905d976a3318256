/**
 * The layers of src/, bottom first (scripts/check-layers.ts enforces them; docs/extending.md shows
 * them, and test/unit/extending-doc.test.ts keeps the two the same). A part is a top folder of src/
 * or a file directly in it; each kind under src/backend/ is a part (`backend/*`), and a kind's
 * params.ts (its term_open schema, zod only) is part of the contract.
 */
/** A part may import its own layer and the layers below; loops are never allowed. */
export const LAYERS: string[][] = [
  ["log", "version", "self-command"],
  ["util"],
  ["api", "backend/*/params"],
  ["paths"],
  ["config"],
  ["terminal", "reduce"],
  ["daemon-client"],
  // The Backend interface and the kind descriptor's shape, then the kinds (one layer: a kind may
  // use another's parts, never in a loop), then the list of kinds.
  ["backend"],
  ["backend/*"],
  ["backend/registry"],
  ["session"],
  // The guard judges; the audit trail records its decisions; the host's gate joins the two.
  ["guard"],
  ["audit"],
  ["host"],
  // The web view (issue 38): a human's browser on the host's sessions, served by mcp's HTTP server.
  ["web"],
  ["mcp"],
  ["daemon"],
  ["attach", "install"],
  // The self-check reads the clients' configs as install does, and runs sessions and the daemon.
  ["doctor"],
  ["cli"],
];

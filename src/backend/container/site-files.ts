/** A container's files for the guard: the far-side probe (site-probe.ts) run by one engine exec. */
import type { SiteFiles } from "../site-files.ts";
import { probedSiteFiles } from "../site-probe.ts";
import type { EngineClient } from "./engine-client.ts";
import { runExec } from "./exec-run.ts";

export function containerSiteFiles(engine: EngineClient, containerId: string, user?: string): SiteFiles {
  return probedSiteFiles(
    async (argv, timeoutMs) => (await runExec(engine, containerId, argv, { user, timeoutMs })).out,
  );
}

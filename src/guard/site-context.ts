/**
 * Where the guard judges a line against: the session's files. A local session's are this
 * machine's; a container's are asked of the container (src/backend/site-files.ts); an SSH host's
 * or a serial device's are unknown, and a rule that needs a fact (is this a repository, is its
 * work committed) then says it could not be checked, and the human is asked.
 */
import { homedir } from "node:os";
import type { SiteFiles } from "../backend/site-files.ts";
import { gitBranch, gitStatus, isRepository } from "./git.ts";
import type { RuleContext } from "./rule-types.ts";

/**
 * What `~` means on an unknown host; a path that cannot name any real directory stands for it, so
 * `rm -rf ~` is still the home directory and nothing else is mistaken for it.
 */
export const REMOTE_HOME = "/\0remote-home";

/** This machine's files, judged at `cwd`. */
export function hostContext(cwd: string | null): RuleContext {
  return { cwd, home: homedir(), gitStatus, gitBranch, isRepository };
}

/** Files no one can be asked about. */
export function unknownContext(cwd: string | null, home: string | null = null): RuleContext {
  return { cwd, home: home ?? REMOTE_HOME, gitStatus: () => null, gitBranch: () => null, isRepository: () => null };
}

/**
 * What `judge` finds with the far side's own answers: judged once with nothing known while noting
 * the directories the rules ask about; when there were any, they are asked of the far side and the
 * line judged again with its answers. Most lines ask nothing, and cost no round trip but the home's
 * (asked once per session).
 */
export async function judgedThere<T>(
  files: SiteFiles,
  cwd: string | null,
  judge: (ctx: RuleContext) => T[],
): Promise<T[]> {
  const { home } = await files.facts([]);
  const asked = new Set<string>();
  const note = (dir: string) => {
    asked.add(dir);
    return null;
  };
  const first = judge({ ...unknownContext(cwd, home), gitStatus: note, gitBranch: note, isRepository: note });
  if (asked.size === 0) return first;
  const facts = await files.facts([...asked]);
  return judge({
    cwd,
    home: facts.home ?? home ?? REMOTE_HOME,
    gitStatus: (dir) => facts.trees.get(dir)?.status ?? null,
    gitBranch: (dir) => facts.trees.get(dir)?.branch ?? null,
    isRepository: (dir) => facts.trees.get(dir)?.repository ?? null,
  });
}

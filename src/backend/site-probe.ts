/**
 * The guard's questions about a far side's files (a container's, a pod's), answered there: one
 * short program run through the kind's own exec (no TTY, as the session's user) prints the home
 * and, for each directory asked about, whether it has a `.git`, its `git status --porcelain` and
 * its branch. A far side without git answers "unknown", and the guard then asks as it would about
 * an unknown host.
 */
import { logger } from "../log.ts";
import { type SiteFacts, type SiteFiles, unknownFacts, type WorkTreeFacts } from "./site-files.ts";

const log = logger("site-files");

/** Past this the facts count as unknown: the guard asks rather than waits on a busy far side. */
export const SITE_FACTS_TIMEOUT_MS = 3_000;

/** Runs `argv` there to its end, within `timeoutMs`, and gives its stdout. */
export type RunThere = (argv: string[], timeoutMs: number) => Promise<string>;

/**
 * POSIX sh: the home, then three fields per directory, each ended by NUL. A field starting with
 * `y` holds an answer after the `y`; `n` means git is missing or said no.
 */
const PROBE = [
  `printf '%s\\0' "\${HOME:-}"`,
  "have_git=n; command -v git >/dev/null 2>&1 && have_git=y",
  "for d do",
  `  if [ -e "$d/.git" ]; then printf '1\\0'; else printf '0\\0'; fi`,
  `  if [ $have_git = y ] && s=$(git -C "$d" status --porcelain 2>/dev/null); then printf 'y%s\\0' "$s";`,
  `  else printf 'n\\0'; fi`,
  `  if [ $have_git = y ] && b=$(git -C "$d" symbolic-ref --quiet --short HEAD 2>/dev/null); then`,
  `    printf 'y%s\\0' "$b"; else printf 'n\\0'; fi`,
  "done",
].join("\n");

const answer = (field: string | undefined): string | null => (field?.startsWith("y") ? field.slice(1) : null);

/** The probe's output, read back; fields missing (a cut-off answer) stay unknown. */
export function parseProbe(out: string, dirs: string[]): SiteFacts {
  const fields = out.split("\0");
  const facts = unknownFacts(dirs, fields[0] ? fields[0] : null);
  dirs.forEach((dir, i) => {
    const [repo, status, branch] = fields.slice(1 + i * 3, 4 + i * 3);
    if (branch === undefined) return;
    const tree: WorkTreeFacts = {
      repository: repo === "1" ? true : repo === "0" ? false : null,
      // `$(…)` dropped the status's last newline: put it back, so it reads as git printed it.
      status: answer(status) === null ? null : answer(status) === "" ? "" : `${answer(status)}\n`,
      branch: answer(branch) || null,
    };
    facts.trees.set(dir, tree);
  });
  return facts;
}

/** The far side's files as `run` finds them there. */
export function probedSiteFiles(run: RunThere): SiteFiles {
  // The home of a user rarely moves: asked once, then remembered.
  let home: string | null | undefined;
  return {
    async facts(dirs) {
      if (dirs.length === 0 && home !== undefined) return unknownFacts([], home);
      try {
        const facts = parseProbe(await run(["/bin/sh", "-c", PROBE, "sh", ...dirs], SITE_FACTS_TIMEOUT_MS), dirs);
        if (facts.home !== null) home = facts.home;
        return facts;
      } catch (err) {
        log.debug(`the guard's look at the far side's files failed: ${String(err)}`);
        return unknownFacts(dirs, home ?? null);
      }
    },
  };
}

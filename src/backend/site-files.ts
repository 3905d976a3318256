/**
 * What a far side says about its own files, for the guard: a container's home and its work trees'
 * git state are the container's, not this machine's (src/guard/site-context.ts asks). A kind that
 * can run a short program there offers this with its opened backend; one that cannot leaves it out
 * and the guard judges as on an unknown host.
 */

/** git's view of one directory there; each fact null when it cannot be known. */
export interface WorkTreeFacts {
  /** `git status --porcelain`: "" when clean. */
  status: string | null;
  /** The checked-out branch. */
  branch: string | null;
  /** Whether it is a repository's work tree (a `.git` in it). */
  repository: boolean | null;
}

export interface SiteFacts {
  /** The session user's home there. */
  home: string | null;
  /** Keyed by the directories asked about. */
  trees: Map<string, WorkTreeFacts>;
}

export interface SiteFiles {
  /** Facts about `dirs` (absolute paths there), and the home. Never throws: unknown facts are null. */
  facts(dirs: string[]): Promise<SiteFacts>;
}

/** Nothing known: what a far side that cannot be asked (or did not answer) says. */
export function unknownFacts(dirs: string[], home: string | null = null): SiteFacts {
  const unknown: WorkTreeFacts = { status: null, branch: null, repository: null };
  return { home, trees: new Map(dirs.map((d) => [d, unknown])) };
}

/**
 * What a guard rule is given and answers: one program invocation (wrappers peeled, unwrap.ts) in
 * its pipeline, and the session's context. The rules themselves live in rules.ts and the files of
 * the classes it gathers.
 */
import type { GuardRuleId } from "../config/guard-rule-ids.ts";
import type { Invocation } from "./unwrap.ts";
import type { PathContext } from "./judged-paths.ts";

export interface RuleContext extends PathContext {
  /**
   * `git status --porcelain` in `dir`: "" when clean, null when it cannot be known (not a local
   * session, git missing, not a repository).
   */
  gitStatus(dir: string): string | null;
  /** The checked-out branch in `dir`, null when unknown. */
  gitBranch(dir: string): string | null;
  /**
   * Is `dir` a git repository's work tree (has a `.git`)? Absent, or null, when it cannot be
   * known (over SSH): a repository is what a person cannot recreate when it has unpushed work.
   */
  isRepository?(dir: string): boolean | null;
}

export interface RuleInput {
  inv: Invocation;
  /** The pipeline the invocation stands in, and its place in it. */
  pipeline: Invocation[];
  index: number;
}

export interface Rule {
  id: GuardRuleId;
  /** One line for docs/safety.md and the human's confirmation. */
  summary: string;
  check(input: RuleInput, ctx: RuleContext): string | null;
}

/**
 * The ids of the guard's built-in rules: what `guard.disable` may name. They live here, below the
 * guard, so that the settings can be checked where they are read without the config importing the
 * rules (the folders are layered: scripts/check-layers.ts). The rule table types its ids by this
 * list, and test/guard/rule-ids.test.ts checks that every id here has a rule.
 */
export const GUARD_RULE_IDS = [
  "rm-recursive-root",
  "mkfs",
  "dd-device",
  "wipe-device",
  "chmod-recursive-root",
  "git-force-push",
  "git-discard-work",
  "sql-destroy",
  "pipe-to-shell",
  "shutdown",
  "infra-destroy",
  "datastore-wipe",
  "irreplaceable-delete",
  "empty-system-file",
  "kill-all",
  "fork-bomb",
  "startup-env",
  "system-config",
  "git-history",
] as const;

export type GuardRuleId = (typeof GUARD_RULE_IDS)[number];

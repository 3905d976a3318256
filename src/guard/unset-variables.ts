/**
 * `rm -rf "$BUILD_DIR/"`, `rm -rf $STEAMROOT/*`: a tree named by a variable and a slash alone.
 * When the variable is empty or unset the shell deletes `/` (or everything in it) — the classic
 * disaster. A variable the line itself sets is judged by its value instead (classify.ts), and the
 * expansions that refuse an unset one (`${X:?}`) are not this form.
 */
import type { Invocation } from "./unwrap.ts";
import { deletedTrees } from "./deleted-trees.ts";

/** `$NAME/`, `${NAME}/`, `$NAME/*`, `${NAME}/.*`: nothing but the variable before the root's slash. */
const VARIABLE_ROOT = /^\$(\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))\/(\*|\.\*)?$/;
/** Variables every login shell has (`$HOME`, `$PWD` are resolved as paths by the rules themselves). */
const ALWAYS_SET = new Set(["HOME", "PWD", "OLDPWD", "USER", "LOGNAME", "SHELL", "PATH"]);

/** Why each deletion of `$NAME/` would delete the root when NAME is empty, for the names not in `assigned`. */
export function unsetVariableRoots(all: { inv: Invocation }[], assigned: ReadonlySet<string>): string[] {
  const reasons: string[] = [];
  for (const { inv } of all) {
    for (const tree of deletedTrees(inv)) {
      const m = VARIABLE_ROOT.exec(tree.word);
      const name = m?.[2] ?? m?.[3];
      if (name === undefined || assigned.has(name) || ALWAYS_SET.has(name) || tree.filtered) continue;
      reasons.push(`${tree.how} ${tree.word}: the root directory / when $${name} is empty or unset`);
    }
  }
  return reasons;
}

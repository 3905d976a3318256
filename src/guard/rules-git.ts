/**
 * The `git-history` rule: git commands that destroy history or refs with no copy elsewhere —
 * deleting a shared branch here or on the remote, dropping a stash, expiring the reflog or pruning
 * unreachable objects now (what `reset --hard` left behind is gone after it), rewriting every
 * commit (`filter-branch`, `filter-repo`), deleting refs by hand, removing a worktree with its
 * changes. Uncommitted work and force pushes are judged by git-discard-work and git-force-push.
 */
import type { Rule, RuleContext } from "./rule-types.ts";
import { gitCommand, SHARED_BRANCH } from "./git-command.ts";
import { options, type Options } from "./options.ts";

/** A ref named as a branch (`main`, `refs/heads/main`) is shared when its name is. */
function sharedBranch(ref: string): boolean {
  return SHARED_BRANCH.test(ref.replace(/^refs\/heads\//, ""));
}

/** A published tag: `refs/tags/…`, or a version's name (`v1.2.0`, `2024.01`, `release-3`). */
const TAG = /^(refs\/tags\/.+|v?\d+(\.\d+)+([-+.].*)?)$/;

/** `git push --delete main`, `git push origin :main`, `git push --prune`: branches or tags deleted on the remote. */
function pushDeletes(o: Options): string | null {
  if (o.long.has("prune")) return "git push --prune deletes every remote branch that has no local copy";
  const refspecs = o.operands.slice(1).filter((r) => r !== "tag");
  const deleting = o.long.has("delete") || o.short.has("d");
  const deleted = deleting ? refspecs : refspecs.filter((r) => r.startsWith(":")).map((r) => r.slice(1));
  const shared = deleted.find(sharedBranch);
  if (shared) return `git push deletes the shared branch ${shared} on the remote`;
  // `git push origin --delete tag v1.0`: the word `tag` names what follows as a tag.
  const tag = deleted.find((r) => TAG.test(r)) ?? (o.operands.includes("tag") && deleting ? refspecs[0] : undefined);
  return tag ? `git push deletes the published tag ${tag} on the remote` : null;
}

/**
 * What `git branch` deletes or moves: a shared branch (`-d`, `-D`, `--delete`; `-f main HEAD~5`
 * moves it back), or any branch with `-D` (`--delete --force`), whose commits may be merged nowhere.
 */
function branchDeletes(o: Options): string | null {
  const forced =
    o.short.has("D") || ((o.short.has("d") || o.long.has("delete")) && (o.short.has("f") || o.long.has("force")));
  if (o.short.has("f") || o.long.has("force")) {
    const moved = !o.short.has("d") && !o.long.has("delete") && sharedBranch(o.operands[0] ?? "");
    if (moved) return `git branch --force moves the shared branch ${o.operands[0]}: its commits are dropped`;
  }
  // `git branch -M feature main`: a rename onto a shared branch replaces it.
  const renamedOnto =
    o.short.has("M") || ((o.short.has("m") || o.long.has("move")) && (o.short.has("f") || o.long.has("force")));
  const onto = o.operands[o.operands.length - 1] ?? "";
  // With one name it renames the current branch (`git branch -M main`, as a new repository does): kept.
  if (renamedOnto && o.operands.length === 2 && sharedBranch(onto))
    return `git branch -M replaces the shared branch ${onto}`;
  if (!(o.short.has("d") || o.short.has("D") || o.long.has("delete"))) return null;
  const shared = o.operands.find(sharedBranch);
  if (shared) return `git branch deletes the shared branch ${shared}`;
  return forced && o.operands.length > 0
    ? `git branch -D deletes ${o.operands.join(" ")} even if merged nowhere`
    : null;
}

function historyLost(sub: string, o: Options, args: string[]): string | null {
  const dryRun = o.short.has("n") || o.long.has("dry-run");
  switch (sub) {
    case "stash":
      return o.operands[0] === "drop" ? "git stash drop deletes a stash, unrecoverably" : null;
    case "reflog":
      return /^(expire|delete)$/.test(o.operands[0] ?? "") ? "git reflog expire forgets where commits were" : null;
    case "gc":
      return args.some((a) => /^--prune=(now|all)$/.test(a)) ? "git gc --prune=now deletes unreachable commits" : null;
    case "prune":
      return dryRun ? null : "git prune deletes every unreachable commit now";
    case "filter-branch":
      return "git filter-branch rewrites every commit of the history";
    case "filter-repo":
      return o.long.has("analyze") || o.long.has("dry-run") ? null : "git filter-repo rewrites the whole history";
    case "update-ref":
    case "symbolic-ref":
      if (o.short.has("d") || o.long.has("delete")) return `git ${sub} -d deletes a ref by hand`;
      // `git update-ref refs/heads/main HEAD~10`: the shared branch moved by hand, its later commits dropped.
      return sub === "update-ref" && sharedBranch((o.operands[0] ?? "").replace(/^refs\/heads\//, ""))
        ? `git update-ref moves the shared branch ${o.operands[0]} by hand`
        : null;
    // `git rebase -i --root`: every commit of the branch rewritten.
    case "rebase":
      return o.long.has("root") ? "git rebase --root rewrites every commit of the branch" : null;
    // `git submodule deinit -f --all`: every submodule's work tree, its changes with it.
    case "submodule":
      return o.operands[0] === "deinit" && (o.short.has("f") || o.long.has("force"))
        ? "git submodule deinit --force deletes the submodules' work trees and their changes"
        : null;
    // `git checkout -B main X`, `git switch -C main X`: the shared branch reset to X, its own commits dropped.
    case "checkout":
    case "switch": {
      const flag = sub === "checkout" ? "B" : "C";
      const at = args.indexOf(`-${flag}`);
      const branch = at === -1 ? (args.find((a) => a.startsWith("--force-create="))?.slice(15) ?? null) : args[at + 1];
      return branch && sharedBranch(branch) && o.operands.length > 1
        ? `git ${sub} -${flag} resets the shared branch ${branch}: its own commits are dropped`
        : null;
    }
    // `git lfs migrate import --everything`: every commit of every branch rewritten.
    case "lfs":
      return o.operands[0] === "migrate" && /^(import|export)$/.test(o.operands[1] ?? "") && o.long.has("everything")
        ? "git lfs migrate --everything rewrites every commit of every branch"
        : null;
    case "worktree":
      return o.operands[0] === "remove" && (o.short.has("f") || o.long.has("force"))
        ? "git worktree remove --force deletes the worktree's uncommitted changes"
        : null;
    default:
      return null;
  }
}

export const GIT_HISTORY_RULE: Rule = {
  id: "git-history",
  summary:
    "destroying git history or refs: deleting main/master (here or on the remote), git stash drop, " +
    "reflog expire, gc --prune=now, git prune, filter-branch/filter-repo/bfg, update-ref -d",
  check({ inv }, ctx: RuleContext) {
    // `gh api -X DELETE repos/OWNER/REPO`: the repository deleted through the API.
    if (
      inv.argv[0] === "gh" &&
      inv.argv[1] === "api" &&
      /^repos\/[^/]+\/[^/]+\/?$/.test(inv.argv.find((a) => a.startsWith("repos/")) ?? "")
    ) {
      const method = inv.argv.find((_a, i) => /^(-X|--method)$/.test(inv.argv[i - 1] ?? "")) ?? "";
      if (/^delete$/i.test(method)) return "gh api DELETE deletes the repository, its history and issues";
    }
    // `gh api -X DELETE repos/O/R/git/refs/heads/main`: a shared branch deleted on the remote.
    const ref = inv.argv.find((a) => /^\/?repos\/[^/]+\/[^/]+\/git\/refs\/heads\/.+/.test(a));
    const deleteMethod = inv.argv.some((a, i) => /^(-X|--method)$/.test(inv.argv[i - 1] ?? "") && /^delete$/i.test(a));
    if (inv.argv[0] === "gh" && ref && deleteMethod && sharedBranch(ref.replace(/^.*\/refs\/heads\//, ""))) {
      return `gh api DELETE deletes the shared branch ${ref.replace(/^.*\/refs\/heads\//, "")} on the remote`;
    }
    // The BFG Repo-Cleaner rewrites every commit as filter-repo does (`bfg --delete-files id_rsa`).
    if (inv.argv[0] === "bfg" && inv.argv.some((a) => /^--(delete|strip|replace)/.test(a))) {
      return "bfg rewrites the whole history";
    }
    const git = gitCommand(inv.argv, ctx);
    if (!git) return null;
    const o = options(git.args);
    // `git branch | grep -v main | xargs git branch -D`: the names come from a listing, all of them.
    const listed = inv.source.argv[0] === "xargs" && o.operands.length <= (git.sub === "push" ? 1 : 0);
    if (listed && git.sub === "push" && (o.long.has("delete") || o.short.has("d"))) {
      return "git push --delete of every ref a listing printed";
    }
    if (listed && git.sub === "branch" && (o.short.has("D") || o.short.has("d") || o.long.has("delete"))) {
      return "git branch -d of every branch a listing printed";
    }
    if (git.sub === "push") return pushDeletes(o);
    if (git.sub === "branch") return branchDeletes(o);
    return historyLost(git.sub, o, git.args);
  },
};

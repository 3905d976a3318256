/**
 * Commands told to only show what they would do — `--dry-run`, `--simulate`, `--check`, `-n` where
 * the tool means it — change nothing, so the guard lets them pass. The flag must be the invocation's
 * own: `bash -c 'rm -rf /' --dry-run` hands it to the script as `$0`, and the `rm` inside is judged
 * on its own words. Tools that do not know a long option refuse to run with it.
 */

/** Long options that mean "show, do not do" in the tools that have them. */
const DRY_RUN_OPTION =
  /^(--(dry-?run(=(?!none$|false$).+)?|simulate|no-act|just-print|recon|assume-?no|preview-only|what-?if)|-WhatIf)$/i;

/** Per tool, its own spelling of a dry run: `git push -n`, `zfs destroy -n`, `lvremove --test`, `nft -c`. */
const SHORT_DRY_RUN: Record<string, RegExp> = {
  git: /^-[a-zA-Z]*n[a-zA-Z]*$/,
  zfs: /^-[a-zA-Z]*n[a-zA-Z]*$/,
  mke2fs: /^-[a-zA-Z]*n[a-zA-Z]*$/,
  "mkfs.ext2": /^-[a-zA-Z]*n[a-zA-Z]*$/,
  "mkfs.ext3": /^-[a-zA-Z]*n[a-zA-Z]*$/,
  "mkfs.ext4": /^-[a-zA-Z]*n[a-zA-Z]*$/,
  sfdisk: /^-n$/,
  rclone: /^-n$/,
  s3cmd: /^-n$/,
  restic: /^-n$/,
  borg: /^-n$/,
  apt: /^-s$/,
  "apt-get": /^-s$/,
  nft: /^-c$/,
  ansible: /^-C$/,
  "ansible-playbook": /^-C$/,
  lvremove: /^(-t|--test)$/,
  vgremove: /^(-t|--test)$/,
  pvremove: /^(-t|--test)$/,
  lvreduce: /^(-t|--test)$/,
  lvresize: /^(-t|--test)$/,
};
/** Tools whose `--check` only reports: ansible's. */
const CHECK_MODE = new Set(["ansible", "ansible-playbook"]);
/** git subcommands whose `-n` is a dry run (elsewhere it means other things: `git commit -n`, `git log -n`). */
const GIT_DRY_N = /^(push|clean|add|rm|mv|prune|remote|worktree|gc|reflog)$/;

/** Does this invocation (wrappers peeled) only show what it would do? */
export function isDryRun(argv: string[]): boolean {
  const [program = "", ...args] = argv;
  const words = args.slice(0, args.includes("--") ? args.indexOf("--") : undefined);
  if (words.some((a) => DRY_RUN_OPTION.test(a))) return true;
  if (CHECK_MODE.has(program) && words.includes("--check")) return true;
  const short = SHORT_DRY_RUN[program];
  if (short === undefined || !words.some((a) => short.test(a))) return false;
  if (program === "git") return GIT_DRY_N.test(words.find((a) => !a.startsWith("-")) ?? "");
  if (program === "zfs") return words.find((a) => !a.startsWith("-")) === "destroy";
  return true;
}

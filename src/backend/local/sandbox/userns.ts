/**
 * How a launcher that is not root gets the right to mount (mount-ns.ts): in a user namespace of
 * its own, where it holds CAP_SYS_ADMIN over the mount namespace it makes (user_namespaces(7)).
 * The launcher cannot make one itself: unshare(CLONE_NEWUSER) fails with EINVAL in a
 * multi-threaded process (unshare(2)), and Bun always runs several threads. So it is started
 * through util-linux's single-threaded unshare(1), which maps the user's own uid and gid (the
 * session still sees itself as the user) and, with --keep-caps, hands the launcher those
 * capabilities as ambient ones; caps.ts clears them before the session's program runs.
 */

/** unshare(1): --map-current-user is util-linux ≥ 2.38; --keep-caps ≥ 2.36. */
export const UNSHARE = "unshare";
const UNSHARE_ARGS = ["--user", "--map-current-user", "--mount", "--keep-caps", "--"];

/** Whether the launcher needs a user namespace to mount: it does unless it runs as root. */
export function needsUserNamespace(): boolean {
  return typeof process.geteuid === "function" && process.geteuid() !== 0;
}

/** The words put before the launcher's own command, or null when unshare(1) is not installed. */
export function userNamespacePrefix(): string[] | null {
  const unshare = Bun.which(UNSHARE);
  return unshare ? [unshare, ...UNSHARE_ARGS] : null;
}

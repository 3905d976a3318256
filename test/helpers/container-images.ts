/**
 * Images for the container tests, made without any image registry (none is reachable here):
 * - a Debian bookworm minbase (bash, coreutils) from `debootstrap --variant=minbase`, whose rootfs
 *   tarball is cached under a fixed directory, so only the first run on a machine pays for
 *   debootstrap (about a minute);
 * - a busybox-only and a dash-only image: a rootfs with just that program (and busybox's applet
 *   links), the C library it needs, and an /etc/passwd, for the cases without bash.
 * Each is `docker import`ed into the test's private engine.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { run, scratchDir } from "../ssh/sshd.ts";
import { haveDocker, type Dockerd } from "./dockerd.ts";

export const DEBOOTSTRAP = "/usr/sbin/debootstrap";
/** Where the minbase rootfs tarball is kept between runs (the machine keeps /var/cache). */
export const IMAGE_CACHE_DIR = process.env.PTYHUB_TEST_IMAGE_CACHE ?? "/var/cache/ptyhub-test";
const MINBASE_TAR = join(IMAGE_CACHE_DIR, "bookworm-minbase.tar");

export const BASH_IMAGE = "ptyhub-test/bookworm:minbase";
export const BUSYBOX_IMAGE = "ptyhub-test/busybox:only";
export const DASH_IMAGE = "ptyhub-test/dash:only";

/**
 * glibc's loader and base libraries: what busybox and dash link against, and what a compiled
 * ptyhub binary needs besides (libpthread, libdl, libm), so a persistent session can run there.
 */
const GLIBC_FILES = [
  "/lib64/ld-linux-x86-64.so.2",
  "/lib/x86_64-linux-gnu/libc.so.6",
  "/lib/x86_64-linux-gnu/libm.so.6",
  "/lib/x86_64-linux-gnu/libpthread.so.0",
  "/lib/x86_64-linux-gnu/libdl.so.2",
  "/lib/x86_64-linux-gnu/libresolv.so.2",
];

async function must(argv: string[]): Promise<string> {
  const r = await run(argv);
  if (r.code !== 0) throw new Error(`${argv.join(" ")} failed (${r.code}): ${r.err.slice(-2000)}`);
  return r.out;
}

/** The minbase rootfs tarball, made with debootstrap the first time (written aside, then renamed). */
export async function minbaseTarball(): Promise<string> {
  if (existsSync(MINBASE_TAR)) return MINBASE_TAR;
  mkdirSync(IMAGE_CACHE_DIR, { recursive: true });
  const work = join(IMAGE_CACHE_DIR, `build-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  try {
    await must([DEBOOTSTRAP, "--variant=minbase", "bookworm", join(work, "rootfs")]);
    await must(["tar", "-C", join(work, "rootfs"), "-cf", join(work, "rootfs.tar"), "."]);
    renameSync(join(work, "rootfs.tar"), MINBASE_TAR);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return MINBASE_TAR;
}

/** A rootfs holding `programs` (at their host paths), glibc, /tmp, /root and a passwd whose root logs in to /bin/sh. */
function smallRootfs(programs: string[]): string {
  const root = join(scratchDir("rootfs-"), "rootfs");
  for (const file of [...programs, ...GLIBC_FILES]) {
    const to = join(root, file);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(file, to);
    chmodSync(to, 0o755);
  }
  for (const d of ["tmp", "root", "etc", "bin"]) mkdirSync(join(root, d), { recursive: true });
  chmodSync(join(root, "tmp"), 0o1777);
  writeFileSync(join(root, "etc", "passwd"), "root:x:0:0:root:/root:/bin/sh\n");
  writeFileSync(join(root, "etc", "group"), "root:x:0:\n");
  return root;
}

async function importRootfs(dockerd: Dockerd, rootfs: string, name: string): Promise<void> {
  const tar = `${rootfs}.tar`;
  await must(["tar", "-C", rootfs, "-cf", tar, "."]);
  await dockerd.dockerOk(["import", tar, name]);
}

/** Debian bookworm minbase: bash as root's login shell, coreutils. */
export async function importBashImage(dockerd: Dockerd): Promise<string> {
  await dockerd.dockerOk(["import", await minbaseTarball(), BASH_IMAGE]);
  return BASH_IMAGE;
}

/** busybox as /bin/sh (ash) and every applet, nothing else. */
export async function importBusyboxImage(dockerd: Dockerd): Promise<string> {
  const root = smallRootfs(["/usr/bin/busybox"]);
  const applets = (await must(["/usr/bin/busybox", "--list"])).split("\n").filter(Boolean);
  for (const applet of applets) {
    const link = join(root, "bin", applet);
    if (!existsSync(link)) symlinkSync("/usr/bin/busybox", link);
  }
  await importRootfs(dockerd, root, BUSYBOX_IMAGE);
  return BUSYBOX_IMAGE;
}

/** dash as /bin/sh and nothing else: not even cat, mktemp or rm. */
export async function importDashImage(dockerd: Dockerd): Promise<string> {
  const root = smallRootfs(["/usr/bin/dash"]);
  symlinkSync("/usr/bin/dash", join(root, "bin", "sh"));
  await importRootfs(dockerd, root, DASH_IMAGE);
  return DASH_IMAGE;
}

/**
 * Whether this run can and may drive a private dockerd: root, dockerd and the CLI, an image or
 * debootstrap to make one, and an isolated HOME (the test runner's). With PTYHUB_REQUIRE_DOCKER=1
 * (CI) a machine that cannot is an error, not a skip.
 */
export function containerTestsEnabled(): boolean {
  const cachedImage = existsSync(join(IMAGE_CACHE_DIR, "bookworm-minbase.tar"));
  const available = haveDocker && (cachedImage || existsSync(DEBOOTSTRAP));
  if (!available && process.env.PTYHUB_REQUIRE_DOCKER === "1") {
    throw new Error("PTYHUB_REQUIRE_DOCKER=1 but root, dockerd, the docker CLI or debootstrap is missing");
  }
  const root = process.env.PTYHUB_TEST_ROOT;
  return available && root !== undefined && homedir().startsWith(root);
}

/**
 * Over SSH too, the marks' nonce is out of reach of the programs a session runs (issue 23, item 3):
 * the remote shell gets it on descriptor 3 from a file removed before the shell starts, so a
 * program looking at its ancestors' environment, argv and descriptors, and at the setup directory,
 * finds nothing. A real sshd on loopback, the in-process host (to know the session's nonce), and
 * bash and POSIX sh as login shells.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { cleanup, haveSshd, isRoot, keygen, scratchDir, startSshd, type Sshd } from "./sshd.ts";
import { ctx, defaults, newHost } from "../helpers/host.ts";

const isolated = process.env.PTYHUB_TEST_ROOT !== undefined && homedir().startsWith(process.env.PTYHUB_TEST_ROOT);
const enabled = haveSshd && isolated && process.platform === "linux" && isRoot;

/** Reads what it can of its ancestors (environ, cmdline, every descriptor) into DUMP. */
const HUNTER = String.raw`
import os, sys
out, host = open(sys.argv[1], "wb"), int(sys.argv[2])
pid = os.getpid()
while pid > 1:
    paths = ["/proc/%d/environ" % pid, "/proc/%d/cmdline" % pid]
    try:
        # Not the host's (this test process): reading its pipes would take bytes meant for it.
        fds = os.listdir("/proc/%d/fd" % pid) if pid != host else []
        paths += ["/proc/%d/fd/%s" % (pid, fd) for fd in fds]
    except OSError:
        pass
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            try:
                out.write(b"\n== " + path.encode() + b"\n" + os.read(fd, 1 << 20))
            finally:
                os.close(fd)
        except OSError:
            pass
    with open("/proc/%d/stat" % pid) as f:
        pid = int(f.read().rsplit(")", 1)[1].split()[1])
for root, dirs, files in os.walk(os.environ.get("TMPDIR", "/tmp")):
    for name in files:
        if "ptyhub." in root:
            try:
                out.write(open(os.path.join(root, name), "rb").read())
            except OSError:
                pass
out.close()
print("hunted")
`;

let sshd: Sshd;
let scratch: string;
const host = newHost();

describe.skipIf(!enabled)("ssh: the nonce", () => {
  beforeAll(async () => {
    scratch = scratchDir("ssh-nonce-");
    const ssh = join(homedir(), ".ssh");
    mkdirSync(ssh, { recursive: true, mode: 0o700 });
    const key = join(ssh, "id_ed25519");
    await keygen(key);
    sshd = await startSshd({ authorizedKeys: readFileSync(`${key}.pub`, "utf8") });
    const [type, b64] = sshd.hostKeyPub.split(/\s+/);
    writeFileSync(join(ssh, "known_hosts"), `[127.0.0.1]:${sshd.port} ${type} ${b64}\n`, { mode: 0o600 });
  });
  afterAll(async () => {
    await host.shutdown();
    await sshd?.stop();
    if (scratch) cleanup(scratch);
  });

  test.each(["bash", "sh"])(
    "%s: a program in the remote session cannot find it",
    async (shell) => {
      const name = `ssh-${shell}`;
      await host.open({ name, command: shell, ssh: { host: "127.0.0.1", port: sshd.port } }, ctx);
      const nonce = host.manager.get(name).nonce;
      const dir = scratchDir("ssh-hunt-");
      writeFileSync(join(dir, "hunt.py"), HUNTER);
      const dump = join(dir, "dump");
      const r = await host.exec(
        { session: name, command: `python3 ${join(dir, "hunt.py")} ${dump} ${process.pid}`, ...defaults },
        ctx,
      );
      expect(r).toMatchObject({
        status: "done",
        exit_code: 0,
        output: "hunted",
        via: shell === "sh" ? "marker" : "shell",
      });
      const found = readFileSync(dump, "latin1");
      expect(found).toContain(`PTYHUB_SESSION=${name}`);
      expect(found).not.toContain(nonce);
      await host.close({ session: name }, ctx);
      cleanup(dir);
    },
    60_000,
  );
});

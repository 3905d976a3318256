/**
 * ~/.ssh/config resolution and known_hosts matching, on fixture files (no server needed).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { hostOptions, parseHop, resolveHost } from "../../src/backend/ssh/ssh-config.ts";
import {
  addKnownHost,
  checkHostKey,
  fingerprint,
  hashName,
  keyTypeOf,
  keysFor,
  knownHostsName,
  knownTypes,
} from "../../src/backend/ssh/known-hosts.ts";
import { setupScript } from "../../src/backend/ssh/remote-shell.ts";
import { BASH } from "../../src/terminal/shells/bash.ts";

const dir = mkdtempSync(join(tmpdir(), "ssh-parse-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** A fake wire-format key blob of a given type. */
function blob(type: string, seed: string): Buffer {
  const t = Buffer.from(type);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(t.length);
  return Buffer.concat([len, t, createHash("sha256").update(seed).digest()]);
}

describe("ssh config", () => {
  const system = file(
    "system_config",
    "Host *\n  User sys-user\n  Port 2222\n  ServerAliveInterval 99\n  HashKnownHosts yes\n",
  );
  const included = file("extra.conf", "Host inc-*\n  HostName included.example\n");
  const user = file(
    "config",
    [
      "# comment",
      `Include ${included}`,
      "Host web-1 !web-1.bad",
      "  Port=2201",
      '  IdentityFile "~/.ssh/key one"',
      "Host web-* db?",
      "  HostName %h.internal",
      "  User deploy",
      "  Port 1",
      "  IdentityFile ~/.ssh/id_%r",
      "  IdentitiesOnly yes",
      "  ProxyJump bastion,admin@gate:2200",
      "  ConnectTimeout 7",
      "Match host *.internal user deploy",
      "  ServerAliveInterval 3",
      "Match originalhost nomatch",
      "  ServerAliveInterval 1",
      "Host *",
      "  ServerAliveCountMax 5",
    ].join("\n"),
  );
  const files = { user, system };

  test("first obtained value wins; wildcards; negation; IdentityFile accumulates with tokens", () => {
    const h = resolveHost({ host: "web-1" }, files);
    expect(h).toMatchObject({
      hostname: "web-1.internal",
      port: 2201,
      user: "deploy",
      identitiesOnly: true,
      proxyJump: "bastion,admin@gate:2200",
      connectTimeout: 7,
    });
    expect(h.identityFiles).toEqual([join(homedir(), ".ssh", "key one"), join(homedir(), ".ssh", "id_deploy")]);
    expect(h.identitiesNamed).toBe(true);
    expect(h.serverAliveInterval).toBe(3);
    expect(h.serverAliveCountMax).toBe(5);
    expect(h.hashKnownHosts).toBe(true);
    expect(h.hostKeyName).toBe("web-1.internal");
  });

  test("`?` wildcard, the call's user and port win over the config", () => {
    const h = resolveHost({ host: "db1", user: "me", port: 2022 }, files);
    expect(h).toMatchObject({ hostname: "db1.internal", user: "me", port: 2022 });
  });

  test("negated pattern excludes; system config supplies the rest; defaults apply", () => {
    const h = resolveHost({ host: "web-1.bad" }, files);
    expect(h).toMatchObject({ hostname: "web-1.bad.internal", user: "deploy", port: 1 });
    const other = resolveHost({ host: "plain.example" }, files);
    expect(other).toMatchObject({
      hostname: "plain.example",
      user: "sys-user",
      port: 2222,
      proxyJump: null,
      identitiesNamed: false,
      serverAliveInterval: 99,
    });
    expect(other.identityFiles[0]).toBe(join(homedir(), ".ssh", "id_rsa"));
    expect(other.knownHostsFiles[0]).toBe(join(homedir(), ".ssh", "known_hosts"));
  });

  test("Include pulls in other files", () => {
    expect(hostOptions("inc-3", files).get("hostname")).toEqual(["included.example"]);
  });

  test("hops: user@host:port, [v6]:port, ssh:// URIs; bad ones are INVALID_ARGUMENT", () => {
    expect(parseHop("admin@gate:2200")).toEqual({ host: "gate", user: "admin", port: 2200 });
    expect(parseHop("[::1]:22")).toEqual({ host: "::1", user: undefined, port: 22 });
    expect(parseHop("ssh://u@h")).toEqual({ host: "h", user: "u", port: undefined });
    expect(() => parseHop("h:99999")).toThrow();
    expect(() => parseHop("a b")).toThrow();
  });
});

describe("known_hosts", () => {
  const ed = blob("ssh-ed25519", "a");
  const ed2 = blob("ssh-ed25519", "b");
  const rsa = blob("ssh-rsa", "c");
  const kh = file(
    "known_hosts",
    [
      "# comment",
      `plain.example,10.0.0.1 ssh-ed25519 ${ed.toString("base64")}`,
      `[ported.example]:2222 ssh-ed25519 ${ed.toString("base64")} comment`,
      `${hashName("hashed.example")} ssh-ed25519 ${ed.toString("base64")}`,
      `*.wild.example,!bad.wild.example ssh-ed25519 ${ed.toString("base64")}`,
      `typed.example ssh-rsa ${rsa.toString("base64")}`,
      `@cert-authority *.example ssh-ed25519 ${ed2.toString("base64")}`,
      `@revoked * ssh-ed25519 ${ed2.toString("base64")}`,
      "garbage line",
    ].join("\n"),
  );

  test("plain, [host]:port, hashed, wildcard and negated entries", () => {
    expect(checkHostKey([kh], "plain.example", 22, ed).status).toBe("known");
    expect(checkHostKey([kh], "10.0.0.1", 22, ed).status).toBe("known");
    expect(checkHostKey([kh], "ported.example", 2222, ed).status).toBe("known");
    expect(checkHostKey([kh], "ported.example", 22, ed).status).toBe("unknown");
    expect(checkHostKey([kh], "hashed.example", 22, ed).status).toBe("known");
    expect(checkHostKey([kh], "a.wild.example", 22, ed).status).toBe("known");
    expect(checkHostKey([kh], "bad.wild.example", 22, ed).status).toBe("unknown");
  });

  test("a different key, a key of another type, and a revoked key are mismatches", () => {
    const changed = checkHostKey([kh], "plain.example", 22, ed2);
    expect(changed.status).toBe("mismatch");
    const other = checkHostKey([kh], "typed.example", 22, ed);
    expect(other).toMatchObject({ status: "mismatch", entry: null, knownTypes: ["ssh-rsa"] });
    expect(checkHostKey([kh], "anything.else", 22, ed2)).toMatchObject({ status: "mismatch", revoked: true });
    expect(knownTypes([kh], "typed.example", 22)).toEqual(["ssh-rsa"]);
  });

  test("fingerprints and key types as OpenSSH prints them", () => {
    expect(keyTypeOf(rsa)).toBe("ssh-rsa");
    expect(fingerprint(ed)).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(knownHostsName("h", 22)).toBe("h");
    expect(knownHostsName("h", 2222)).toBe("[h]:2222");
  });

  test("addKnownHost appends plain or hashed lines that match afterwards", () => {
    const out = join(dir, "sub", "known_hosts");
    addKnownHost(out, "new.example", 2200, ed, false);
    addKnownHost(out, "hidden.example", 22, rsa, true);
    const text = readFileSync(out, "utf8");
    expect(text).toContain(`[new.example]:2200 ssh-ed25519 ${ed.toString("base64")}`);
    expect(text).not.toContain("hidden.example");
    expect(keysFor([out], "hidden.example")).toHaveLength(1);
    expect(checkHostKey([out], "new.example", 2200, ed).status).toBe("known");
  });
});

describe("remote setup script", () => {
  test("the login variant of the bash integration loads the profile files, not .bashrc directly", () => {
    const rc = BASH.remote.files["bash.rc"]!;
    expect(rc).toContain(". /etc/profile");
    expect(rc).toContain(".bash_profile");
    expect(rc).toContain("__ptyhub_precmd");
    expect(rc).toContain('rm -rf -- "$PTYHUB_DIR"');
  });

  test("user text is quoted; the nonce is only in a file, never on a command line", () => {
    const s = setupScript(
      {
        command: "echo 'hi'",
        cwd: "~/x y",
        env: { A: "it's" },
        sessionId: "t1",
        nonce: "abc123",
        cols: 80,
        rows: 24,
        agentForward: false,
        timeoutMs: 1000,
      },
      null,
      "cmd",
    );
    expect(s).toContain("A='it'\\''s'; export A");
    expect(s).toContain("c='~/x y'");
    // A command gets no hooks, but its start is marked (S): the nonce goes to the file, once.
    expect(s).toContain(`printf '%s\\n' 'abc123' > "$d/nonce"`);
    expect(s.split("abc123").length).toBe(2);
    const sh = setupScript(
      { sessionId: "t1", nonce: "abc123", cols: 80, rows: 24, agentForward: false, timeoutMs: 1000 },
      "zsh",
      "shell",
    );
    expect(sh).toContain(`printf '%s\\n' 'abc123' > "$d/nonce"`);
    expect(sh.split("abc123").length).toBe(2);
    expect(sh).toContain("command -v 'zsh'");
  });
});

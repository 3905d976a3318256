/**
 * Client authentication, in the order `ssh` uses by default: the ssh-agent (SSH_AUTH_SOCK), then
 * identity files (named ones, else the defaults), then keyboard-interactive and password.
 *
 * Identity files are offered through a small in-process agent: the server is first asked whether
 * it would accept the public key, and only when it says yes is the private key needed, so the
 * human is asked for a passphrase only for a key that can actually log in (as `ssh` does).
 * Passphrases and passwords come from the human through MCP elicitation: never from a tool
 * argument, never logged, never part of an error or any output. Without elicitation the failure
 * says what the human can do instead.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import {
  BaseAgent,
  OpenSSHAgent,
  utils,
  type AnyAuthMethod,
  type AuthenticationType,
  type AuthHandlerMiddleware,
  type ParsedKey,
  type PublicKeyEntry,
  type Prompt,
} from "ssh2";
import { logger } from "../../log.ts";
import type { ResolvedHost } from "./ssh-config.ts";
import type { Elicit } from "../../api/elicit.ts";

export type { Elicit };

const log = logger("ssh-auth");

/** How often the human may retry a passphrase or password before that method is given up. */
export const HUMAN_ATTEMPTS = 3;

/** State shared by the hops of one connection (a jump host and its target). */
export interface AuthShared {
  elicit?: Elicit;
  /** Wraps a wait on the human, so connect timeouts do not count the time they take to answer. */
  humanWait<T>(p: Promise<T>): Promise<T>;
  /** Keys decrypted with a passphrase the human gave, by path: asked once per connection. */
  decrypted: Map<string, ParsedKey>;
  /** What the human would have had to provide, when elicitation is unavailable. */
  needsHuman: string[];
  /** The human declined or cancelled a question, or could not be asked (then `unanswered` says why). */
  declined: boolean;
  unanswered?: string;
  /** The client refused a question by itself, without a human (ElicitResult.unaskedWhy). */
  unasked?: string;
  /** Agent socket, when one is usable. */
  agentSock: string | null;
}

/** What one hop's authentication did, for the error message when it fails. */
export interface AuthReport {
  tried: string[];
  serverMethods: string[] | null;
}

export function agentSocket(): string | null {
  const sock = process.env.SSH_AUTH_SOCK;
  if (!sock) return null;
  try {
    return statSync(sock).isSocket() ? sock : null;
  } catch {
    return null;
  }
}

function display(path: string): string {
  const home = homedir();
  return path.startsWith(home + "/") ? "~" + path.slice(home.length) : path;
}

/** The key of an agent identity: ssh2 hands over parsed keys or `{ pubKey }` entries. */
function identityKey(k: ParsedKey | PublicKeyEntry): ParsedKey | Buffer | string {
  if (!("pubKey" in k)) return k;
  const inner = k.pubKey;
  return "pubKey" in inner ? inner.pubKey : inner;
}

function first(k: ParsedKey | ParsedKey[] | Error): ParsedKey | Error {
  return Array.isArray(k) ? (k[0] ?? new Error("no key")) : k;
}

/** The public key of an openssh-key-v1 private key, which is stored unencrypted in its header. */
function publicFromOpenSshPrivate(text: string): Buffer | null {
  const m = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]*?)-----END OPENSSH PRIVATE KEY-----/.exec(text);
  if (!m) return null;
  const buf = Buffer.from(m[1]!.replace(/\s+/g, ""), "base64");
  const magic = "openssh-key-v1\0";
  if (buf.subarray(0, magic.length).toString("latin1") !== magic) return null;
  let off = magic.length;
  const str = (): Buffer | null => {
    if (off + 4 > buf.length) return null;
    const len = buf.readUInt32BE(off);
    off += 4;
    if (off + len > buf.length) return null;
    const s = buf.subarray(off, off + len);
    off += len;
    return s;
  };
  if (!str() || !str() || !str()) return null; // cipher, kdf name, kdf options
  if (off + 4 > buf.length || buf.readUInt32BE(off) < 1) return null;
  off += 4;
  return str();
}

interface Identity {
  path: string;
  pub: ParsedKey;
  /** Parsed private key; null while it is still encrypted. */
  priv: ParsedKey | null;
  data: string;
}

/** Loads the identity files that exist and parse; encrypted ones need their public half. */
export function loadIdentities(paths: string[]): Identity[] {
  const out: Identity[] = [];
  for (const path of paths) {
    if (!existsSync(path)) continue;
    let data: string;
    try {
      data = readFileSync(path, "utf8");
    } catch (err) {
      log.debug(`cannot read ${display(path)}: ${(err as Error).message}`);
      continue;
    }
    const parsed = first(utils.parseKey(data));
    if (!(parsed instanceof Error)) {
      if (parsed.isPrivateKey()) out.push({ path, pub: parsed, priv: parsed, data });
      continue;
    }
    if (!/passphrase|encrypted/i.test(parsed.message)) {
      log.debug(`skipping ${display(path)}: ${parsed.message}`);
      continue;
    }
    // Encrypted: find the public key without asking anyone.
    let pub: ParsedKey | Error | null = null;
    const header = publicFromOpenSshPrivate(data);
    if (header) pub = first(utils.parseKey(header));
    if ((!pub || pub instanceof Error) && existsSync(path + ".pub"))
      pub = first(utils.parseKey(readFileSync(path + ".pub", "utf8")));
    if (!pub || pub instanceof Error) {
      log.debug(`skipping encrypted ${display(path)}: no public key next to it`);
      continue;
    }
    out.push({ path, pub, priv: null, data });
  }
  return out;
}

type IdentityCb = (err: Error | undefined, keys?: ParsedKey[]) => void;
type SignCb = (err: Error | undefined, signature?: Buffer) => void;

/**
 * Identity files as an agent: ssh2 asks the server about each public key and calls sign() only
 * for one the server accepts, which is when an encrypted key's passphrase is asked for.
 */
class FileKeyAgent extends BaseAgent<ParsedKey> {
  constructor(
    private readonly identities: Identity[],
    private readonly shared: AuthShared,
    private readonly who: string,
  ) {
    super();
  }

  getIdentities(cb: IdentityCb): void {
    cb(
      undefined,
      this.identities.map((i) => i.pub),
    );
  }

  sign(pubKey: ParsedKey, data: Buffer, options: { hash?: string } | SignCb, cb?: SignCb): void {
    const done = (typeof options === "function" ? options : cb)!;
    const hash = typeof options === "object" && options ? options.hash : undefined;
    const blob = pubKey.getPublicSSH();
    const id = this.identities.find((i) => i.pub.getPublicSSH().equals(blob));
    if (!id) return done(new Error("unknown identity"));
    void this.privateKey(id).then(
      (key) => {
        if (!key) return done(new Error(`no usable private key for ${display(id.path)}`));
        const sig = key.sign(data, hash);
        if (sig instanceof Error) return done(sig);
        done(undefined, sig);
      },
      (err: Error) => done(err),
    );
  }

  private async privateKey(id: Identity): Promise<ParsedKey | null> {
    if (id.priv) return id.priv;
    const cached = this.shared.decrypted.get(id.path);
    if (cached) return cached;
    if (!this.shared.elicit) {
      this.shared.needsHuman.push(`the passphrase of ${display(id.path)}`);
      return null;
    }
    for (let attempt = 1; attempt <= HUMAN_ATTEMPTS && !this.shared.declined; attempt++) {
      const again = attempt > 1 ? " (wrong passphrase, try again)" : "";
      const answer = await this.shared.humanWait(
        this.shared.elicit(
          `Passphrase for the SSH key ${display(id.path)}, to log in to ${this.who}${again}`,
          {
            type: "object",
            properties: {
              passphrase: {
                type: "string",
                title: "Passphrase",
                description: "Used to decrypt the key locally; never shown to the model.",
              },
            },
            required: ["passphrase"],
          },
          { secret: true },
        ),
      );
      const passphrase = answer.content?.passphrase;
      if (answer.action !== "accept" || typeof passphrase !== "string") {
        this.shared.declined = true;
        return null;
      }
      const parsed = first(utils.parseKey(id.data, passphrase));
      if (!(parsed instanceof Error) && parsed.isPrivateKey()) {
        this.shared.decrypted.set(id.path, parsed);
        return parsed;
      }
    }
    return null;
  }
}

/** The ssh-agent, limited to some public keys (IdentitiesOnly), remembering what it offered. */
class RecordingAgent extends OpenSSHAgent {
  offered: Buffer[] = [];
  constructor(
    sock: string,
    private readonly only: Buffer[] | null,
  ) {
    super(sock);
  }

  override getIdentities(cb: (err: Error | undefined, keys?: ParsedKey[]) => void): void {
    super.getIdentities((err, keys) => {
      if (err || !keys) return cb(err ?? new Error("no keys"));
      const parsed = keys
        .map((k) => first(utils.parseKey(identityKey(k))))
        .filter((k): k is ParsedKey => !(k instanceof Error));
      const allowed = this.only ? parsed.filter((k) => this.only!.some((b) => b.equals(k.getPublicSSH()))) : parsed;
      this.offered = allowed.map((k) => k.getPublicSSH());
      cb(undefined, allowed);
    });
  }
}

/** Asks the human the server's keyboard-interactive questions, all in one form. */
async function answerPrompts(
  shared: AuthShared,
  who: string,
  name: string,
  instructions: string,
  prompts: Prompt[],
  attempt: number,
): Promise<string[] | null> {
  const properties: Record<string, unknown> = {};
  const keys = prompts.map((_p, i) => (prompts.length === 1 ? "password" : `answer_${i + 1}`));
  prompts.forEach((p, i) => {
    properties[keys[i]!] = {
      type: "string",
      title: p.prompt.trim().replace(/:$/, "") || "Answer",
      description: p.echo ? "Sent to the SSH server." : "Sent to the SSH server; never shown to the model.",
    };
  });
  const header = [name, instructions]
    .map((s) => s.trim())
    .filter(Boolean)
    .join(" — ");
  const again = attempt > 1 ? " (login failed, try again)" : "";
  const answer = await shared.humanWait(
    shared.elicit!(
      `SSH login to ${who}${header ? `: ${header}` : ""}${again}`,
      {
        type: "object",
        properties,
        required: keys,
      },
      { secret: true },
    ),
  );
  if (answer.action !== "accept") {
    shared.declined = true;
    return null;
  }
  return keys.map((k) => {
    const v = answer.content?.[k];
    return typeof v === "string" ? v : "";
  });
}

/**
 * The authentication sequence for one hop, as ssh2 middleware. ssh2 calls it after each failure
 * with the methods the server still accepts (null before the first attempt).
 */
export function authHandler(host: ResolvedHost, shared: AuthShared, report: AuthReport): AuthHandlerMiddleware {
  const who = `${host.user}@${host.hostname}${host.port === 22 ? "" : `:${host.port}`}`;
  const identities = loadIdentities(host.identityFiles);
  const onlyBlobs = host.identitiesOnly ? identities.map((i) => i.pub.getPublicSSH()) : null;
  const agent =
    shared.agentSock && (onlyBlobs === null || onlyBlobs.length > 0)
      ? new RecordingAgent(shared.agentSock, onlyBlobs)
      : null;
  let step = 0;
  let keyboardTries = 0;
  let passwordTries = 0;

  const methods: Array<(left: string[] | null) => AnyAuthMethod | Promise<AnyAuthMethod | null> | null> = [
    () => ({ type: "none", username: host.user }),
    (left) => {
      if (!agent || (left && !left.includes("publickey"))) return null;
      report.tried.push("ssh-agent");
      return { type: "agent", username: host.user, agent } as AnyAuthMethod;
    },
    (left) => {
      if (left && !left.includes("publickey")) return null;
      // Keys the agent already offered are not offered again.
      const rest = identities.filter((i) => !agent?.offered.some((b) => b.equals(i.pub.getPublicSSH())));
      if (rest.length === 0) return null;
      report.tried.push(...rest.map((i) => display(i.path)));
      return { type: "agent", username: host.user, agent: new FileKeyAgent(rest, shared, who) } as AnyAuthMethod;
    },
    (left) => {
      if (!left?.includes("keyboard-interactive") || shared.declined) return null;
      if (!shared.elicit) {
        shared.needsHuman.push(`the password of ${who}`);
        return null;
      }
      if (++keyboardTries > HUMAN_ATTEMPTS) return null;
      if (keyboardTries === 1) report.tried.push("keyboard-interactive");
      step--; // Retried while the server allows it.
      const attempt = keyboardTries;
      return {
        type: "keyboard-interactive",
        username: host.user,
        prompt(
          name: string,
          instructions: string,
          _lang: string,
          prompts: Prompt[],
          finish: (answers: string[]) => void,
        ) {
          answerPrompts(shared, who, name, instructions, prompts, attempt).then(
            (answers) => finish(answers ?? prompts.map(() => "")),
            () => finish(prompts.map(() => "")),
          );
        },
      } as AnyAuthMethod;
    },
    async (left) => {
      if (!left?.includes("password") || shared.declined) return null;
      if (!shared.elicit) {
        if (!shared.needsHuman.includes(`the password of ${who}`)) shared.needsHuman.push(`the password of ${who}`);
        return null;
      }
      // Once keyboard-interactive was tried (it is how PAM asks for the password), the human is not asked twice.
      if (++passwordTries > HUMAN_ATTEMPTS || keyboardTries > 0) return null;
      if (passwordTries === 1) report.tried.push("password");
      const again = passwordTries > 1 ? " (login failed, try again)" : "";
      const answer = await shared.humanWait(
        shared.elicit(
          `Password for SSH login to ${who}${again}`,
          {
            type: "object",
            properties: {
              password: {
                type: "string",
                title: "Password",
                description: "Sent to the SSH server; never shown to the model.",
              },
            },
            required: ["password"],
          },
          { secret: true },
        ),
      );
      const password = answer.content?.password;
      if (answer.action !== "accept" || typeof password !== "string") {
        shared.declined = true;
        return null;
      }
      step--;
      return { type: "password", username: host.user, password } as AnyAuthMethod;
    },
  ];

  return (authsLeft, _partial, next) => {
    const left = (authsLeft as AuthenticationType[] | null) ?? null;
    if (left) report.serverMethods = [...left];
    // ssh2 ends authentication when `next` gets false, which @types/ssh2's NextAuthHandler leaves
    // out (a type alias, so it cannot be augmented): called through Reflect, with the value ssh2
    // documents, rather than telling the type checker that false is a method.
    const giveUp = () => Reflect.apply(next, undefined, [false]);
    void (async () => {
      while (step < methods.length) {
        const method = await methods[step++]!(left);
        if (method) return next(method);
      }
      giveUp();
    })().catch((err) => {
      log.debug(`auth sequence failed: ${(err as Error).message}`);
      giveUp();
    });
  };
}

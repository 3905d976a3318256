/**
 * The ssh-agent SSH sessions use for keys: SSH_AUTH_SOCK is set, something answers on it, and it
 * holds keys. Asked with the agent protocol's own request (list identities, RFC draft-miller-ssh-agent).
 */
import { errorText, type Finding, findingsOf } from "./finding.ts";

const is = findingsOf("ssh-agent");

const SSH_AGENTC_REQUEST_IDENTITIES = 11;
const SSH_AGENT_IDENTITIES_ANSWER = 12;
/** uint32 length, then the message type byte. */
const REQUEST = new Uint8Array([0, 0, 0, 1, SSH_AGENTC_REQUEST_IDENTITIES]);
/** The answer's length, type and key count: 4 + 1 + 4 bytes. */
const ANSWER_HEAD_BYTES = 9;
const AGENT_TIMEOUT_MS = 2_000;

export async function checkSshAgent(env: NodeJS.ProcessEnv = process.env): Promise<Finding[]> {
  const socket = env.SSH_AUTH_SOCK;
  if (!socket) {
    return [
      is.warn(
        "SSH_AUTH_SOCK",
        "not set: SSH sessions can use key files and passwords, not an agent's keys",
        "Only needed for SSH with an agent: eval $(ssh-agent) && ssh-add (and register ptyhub from that shell).",
      ),
    ];
  }
  let keys: number;
  try {
    keys = await countAgentKeys(socket);
  } catch (err) {
    return [
      is.warn(socket, `SSH_AUTH_SOCK is set but the agent does not answer: ${errorText(err)}`, "Restart ssh-agent."),
    ];
  }
  return [
    keys > 0
      ? is.ok(socket, `the agent answers and holds ${keys} key(s)`)
      : is.warn(socket, "the agent answers but holds no key", "ssh-add ~/.ssh/id_ed25519 (or your key)."),
  ];
}

/** Asks the agent at `socket` for its identities; the number it holds. */
function countAgentKeys(socket: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let received = new Uint8Array(0);
    const timer = setTimeout(() => reject(new Error(`no answer within ${AGENT_TIMEOUT_MS} ms`)), AGENT_TIMEOUT_MS);
    // Only the first outcome counts: ending the connection after the answer also calls `close`.
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    Bun.connect({
      unix: socket,
      socket: {
        open(s) {
          s.write(REQUEST);
        },
        data(s, chunk) {
          received = Buffer.concat([received, chunk]);
          if (received.length < ANSWER_HEAD_BYTES) return;
          const view = new DataView(received.buffer, received.byteOffset, received.byteLength);
          const type = view.getUint8(4);
          settle(() =>
            type === SSH_AGENT_IDENTITIES_ANSWER
              ? resolve(view.getUint32(5))
              : reject(new Error(`unexpected answer type ${type}`)),
          );
          s.end();
        },
        close() {
          settle(() => reject(new Error("the agent closed the connection")));
        },
        error(_s, err) {
          settle(() => reject(err));
        },
      },
    }).catch((err) => settle(() => reject(err)));
  });
}

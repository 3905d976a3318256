/**
 * Who may talk to the HTTP transport, besides holding the token: a browser page. A page on any
 * site can send requests to 127.0.0.1, and with DNS rebinding it can even make its own host name
 * resolve there; the browser then says where the page came from in `Origin` and which name it
 * used in `Host`. So a request whose Origin is not the server's own (or a configured one) is
 * refused, and a loopback server answers only to loopback host names.
 */

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];

export function isLoopbackHost(host: string): boolean {
  return (
    host === "127.0.0.1" ||
    host === "localhost" ||
    host === "::1" ||
    host === "[::1]" ||
    /^127\.\d+\.\d+\.\d+$/.test(host)
  );
}

export interface GuardOptions {
  /** The address the server listens on (as given to --host). */
  host: string;
  port: number;
  tls: boolean;
  /** Origins allowed besides the server's own (config http_allowed_origins, --allow-origin). */
  extraOrigins: string[];
}

export interface RequestGuard {
  /** The origins accepted, for the startup log. */
  readonly origins: ReadonlySet<string>;
  /** Why the request must be refused (403), or null when it may proceed. */
  refusal(req: Request): string | null;
}

function bracketed(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

export function createGuard(opts: GuardOptions): RequestGuard {
  const scheme = opts.tls ? "https" : "http";
  const loopback = isLoopbackHost(opts.host);
  const names = loopback ? LOOPBACK_NAMES : [bracketed(opts.host)];
  // Through URL, so a default port (80, 443) is left out, as browsers leave it out.
  const own = names.map((n) => new URL(`${scheme}://${n}:${opts.port}`));
  const hosts = new Set(own.map((u) => u.host));
  const origins = new Set(own.map((u) => u.origin));
  for (const o of opts.extraOrigins) {
    const u = new URL(o);
    origins.add(u.origin);
    hosts.add(u.host);
  }
  return {
    origins,
    refusal(req) {
      const origin = req.headers.get("origin");
      // No Origin: not a cross-site browser request (CLI clients and SDKs send none).
      if (origin !== null && !origins.has(origin)) return `origin ${origin.slice(0, 200)} is not allowed`;
      // Rebinding hides behind the server's own origin only if Host still names the attacker's
      // domain: a loopback server checks Host too (off loopback, a reverse proxy may rewrite it).
      const host = req.headers.get("host");
      if (loopback && (host === null || !hosts.has(host.toLowerCase())))
        return `host ${String(host).slice(0, 200)} is not this server`;
      return null;
    },
  };
}

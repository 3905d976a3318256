/**
 * The MCP server: tools/list from the tool definitions, tools/call with validation before
 * anything reaches a session, typed errors turned into tool results at this edge only.
 * Calls run concurrently; each honours the client's cancellation through its AbortSignal.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ElicitRequestFormParamsSchema,
  ListToolsRequestSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { VERSION } from "../version.ts";
import type { SessionHost } from "../api/host.ts";
import { logger } from "../log.ts";
import type { ToolContext, ViewQuestions } from "./tool.ts";
import { registerResources } from "./resources.ts";
import { toolsForForm } from "./listing.ts";
import { clientProfile, type ClientProfile, type ResultFormSetting } from "./client-profile.ts";
import { OnDemandSchemaValidator } from "./schema-validator.ts";
import { callTool, preloadToolDefs } from "./call-tool.ts";
import { elicitOnSecretPage, formFallbackMessage } from "./secret-page/url-elicit.ts";
import { markUnasked } from "./unasked.ts";
import { rendersApps, toolsForAudience } from "./app-view.ts";
import type { ElicitResult } from "../api/elicit.ts";

const log = logger("mcp");

export const INSTRUCTIONS =
  "ptyhub gives you real, persistent terminals. Use term_exec for shell commands (exact exit codes; state like " +
  "cd/export persists in the default session `main`). " +
  "Use term_open + term_send for REPLs, prompts, editors and anything interactive; term_read to follow long-running " +
  "output. " +
  "Results are rendered text within a token budget; a `truncated` result names the omitted line range for term_read " +
  'mode:"history". ' +
  "Never put passwords in tool arguments: use term_secret.";

export interface ServerOptions {
  host: SessionHost;
  clientId?: () => string;
  /** The `result_form` setting; `auto`: the form is picked by the client (client-profile.ts). */
  resultForm?: ResultFormSetting;
  /** Settles once the answer to request `id` is written out (the transport's; see CallContext.delivered). */
  delivered?: (id: string | number) => Promise<void>;
  /**
   * How long ptyhub's one-time secret page lives (URL-mode elicitation, src/mcp/secret-page).
   * Absent: secrets are asked in forms only (a client that may not share this machine's loopback).
   */
  secretPageTtlMs?: number;
  /**
   * Where a yes/no question goes when this client cannot ask the human, or refused without asking
   * (unasked.ts): the web view's pending questions (src/web/questions.ts), while one is open.
   */
  humanQuestions?: HumanQuestions;
}

/** Questions a human answers outside the MCP client: in the web view, or in this client's MCP Apps view. */
export interface HumanQuestions extends ViewQuestions {
  /** Whether a human is there to answer `client`'s question now. */
  watched(client: string): boolean;
  ask(message: string, schema: Record<string, unknown>, client: string, signal?: AbortSignal): Promise<ElicitResult>;
}

export function createMcpServer(opts: ServerOptions): Server {
  const server = new Server(
    { name: "ptyhub", title: "ptyhub", version: VERSION },
    {
      capabilities: { tools: {}, resources: { subscribe: true, listChanged: true }, completions: {} },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: new OnDemandSchemaValidator(),
    },
  );
  let profile: ClientProfile | null = null;
  // clientInfo is known once initialize has run, before any tools/list or tools/call.
  const client = (): ClientProfile => (profile ??= clientProfile(server.getClientVersion(), opts.resultForm));
  server.oninitialized = () => log.info(`client ${client().name}: ${client().form} results`);
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools = await toolsForForm(client().form);
    preloadToolDefs();
    return { tools: toolsForAudience(tools, rendersApps(server.getClientCapabilities())) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const caps = server.getClientCapabilities();
    const clientId = opts.clientId?.() ?? `mcp-${process.pid}`;
    const human = opts.humanQuestions;
    /** The question put to the human in the web view instead, when one is open there. */
    const askHuman = (message: string, schema: Record<string, unknown>, secret: boolean | undefined) =>
      human && !secret && human.watched(clientId) ? human.ask(message, schema, clientId, extra.signal) : null;
    const ctx: ToolContext = {
      host: opts.host,
      clientId,
      signal: extra.signal,
      delivered: opts.delivered?.(extra.requestId),
      // The view's own tools (app-only) are this client's to call only when it renders MCP Apps.
      ...(rendersApps(caps) ? { appView: { questions: human ?? null } } : {}),
      elicit: caps?.elicitation
        ? async (message, requestedSchema, options) => {
            const askedAt = performance.now();
            const asked = async (): Promise<ElicitResult> => {
              // A secret goes on ptyhub's own page where the client can send the human there (SPEC: term_secret).
              if (options?.secret && caps.elicitation?.url && opts.secretPageTtlMs !== undefined) {
                return elicitOnSecretPage(server, message, requestedSchema, {
                  ttlMs: opts.secretPageTtlMs,
                  signal: extra.signal,
                });
              }
              const shown = options?.secret ? formFallbackMessage(message) : message;
              // Checked, not cast: a schema that came from the daemon is only known to be a record.
              const params = ElicitRequestFormParamsSchema.safeParse({ message: shown, requestedSchema });
              if (!params.success) throw new Error(`not an elicitation form schema: ${params.error.message}`);
              const r = await server.elicitInput(params.data, { signal: extra.signal });
              return { action: r.action, content: r.content as Record<string, unknown> | undefined };
            };
            const answer = markUnasked(await asked(), performance.now() - askedAt, client().label ?? client().name);
            return (answer.unaskedWhy && askHuman(message, requestedSchema, options?.secret)) || answer;
          }
        : human?.watched(clientId)
          ? (message, requestedSchema, options) =>
              askHuman(message, requestedSchema, options?.secret) ??
              Promise.reject(new Error("this MCP client cannot ask, and no web view is open"))
          : undefined,
    };
    return callTool(request.params.name, request.params.arguments, ctx, client());
  });

  // An HTTP server makes one MCP server per client session: each stops listening when it closes.
  const unsubscribe = registerResources(server, opts.host, () => rendersApps(server.getClientCapabilities()));
  server.onclose = unsubscribe;
  return server;
}

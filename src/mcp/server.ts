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
import type { z } from "zod";
import { VERSION } from "../version.ts";
import { AppError } from "../errors.ts";
import type { SessionHost } from "../session/host.ts";
import { logger } from "../log.ts";
import type { ToolContext, ToolDef } from "./tool.ts";
import { errorResult, okResult } from "./result.ts";
import { registerResources } from "./resources.ts";
import { toolListing } from "./listing.ts";
import { clip } from "../util/quote.ts";
import { clientProfile, type ClientProfile, type ResultFormSetting } from "./client-profile.ts";
import { addHeaderNote, clampBudget, clampNote, fitToClient } from "./client-budget.ts";
import { OnDemandSchemaValidator } from "./schema-validator.ts";

const log = logger("mcp");

const INSTRUCTIONS =
  "ptyhub gives you real, persistent terminals. Use term_exec for shell commands (exact exit codes; state like " +
  "cd/export persists in the default session `main`). " +
  "Use term_open + term_send for REPLs, prompts, editors and anything interactive; term_read to follow long-running " +
  "output. " +
  "Results are rendered text within a token budget; a `truncated` result names the omitted line range for term_read " +
  'mode:"history". ' +
  "Never put passwords in tool arguments: use term_secret.";

/**
 * The tool definitions by name, loaded on the first tools/call: their zod schemas take a while to
 * build, and initialize and tools/list (src/mcp/listing.ts) need none of them.
 */
let toolsByName: Promise<Map<string, ToolDef>> | null = null;
function toolDefs(): Promise<Map<string, ToolDef>> {
  toolsByName ??= import("./tools/index.ts").then(({ TOOLS }) => new Map(TOOLS.map((t) => [t.name, t])));
  return toolsByName;
}

/**
 * Loads the tool definitions once tools/list has been answered (a timer, so the answer is written
 * first): the client is reading the listing then, and its model takes longer still to make a first
 * tools/call, which so finds them loaded.
 */
function preloadToolDefs(): void {
  setTimeout(() => toolDefs().catch((err) => log.warn(`loading the tool definitions failed: ${String(err)}`)), 0);
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length > 0 ? clip(i.path.join(".")) : "arguments"}: ${clip(i.message)}`)
    .join("; ");
}

export interface ServerOptions {
  host: SessionHost;
  clientId?: () => string;
  /** The `result_form` setting; `auto`: the form is picked by the client (client-profile.ts). */
  resultForm?: ResultFormSetting;
  /** Settles once the answer to request `id` is written out (the transport's; see CallContext.delivered). */
  delivered?: (id: string | number) => Promise<void>;
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
    // Without an outputSchema, clients hand the model the text rendering instead of the JSON.
    const listing = await toolListing();
    const tools = client().form === "text" ? listing.map(({ outputSchema: _omitted, ...t }) => t) : listing;
    preloadToolDefs();
    return { tools };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: rawArgs } = request.params;
    try {
      const byName = await toolDefs();
      const tool = byName.get(name);
      if (!tool)
        throw new AppError(
          "INVALID_ARGUMENT",
          `unknown tool '${String(name).slice(0, 80)}'`,
          `Tools: ${[...byName.keys()].join(", ")}.`,
        );
      const parsed = tool.input.safeParse(rawArgs ?? {});
      if (!parsed.success) {
        throw new AppError(
          "INVALID_ARGUMENT",
          `invalid arguments for ${name}: ${describeIssues(parsed.error)}`,
          "Check the tool's input schema; nothing was sent to any session.",
        );
      }
      const caps = server.getClientCapabilities();
      const ctx: ToolContext = {
        host: opts.host,
        clientId: opts.clientId?.() ?? `mcp-${process.pid}`,
        signal: extra.signal,
        delivered: opts.delivered?.(extra.requestId),
        elicit: caps?.elicitation
          ? async (message, requestedSchema) => {
              // Checked, not cast: a schema that came from the daemon is only known to be a record.
              const params = ElicitRequestFormParamsSchema.safeParse({ message, requestedSchema });
              if (!params.success) throw new Error(`not an elicitation form schema: ${params.error.message}`);
              const r = await server.elicitInput(params.data, { signal: extra.signal });
              return { action: r.action, content: r.content as Record<string, unknown> | undefined };
            }
          : undefined,
      };
      const clamp = clampBudget(parsed.data as Record<string, unknown>, client());
      const result = (await tool.run(parsed.data, ctx)) as Record<string, unknown>;
      let text = tool.text(result);
      if (clamp && result.truncated) text = addHeaderNote(text, clampNote(clamp));
      return okResult(result, fitToClient(text, client()), client().form);
    } catch (err) {
      if (!(err instanceof AppError)) log.error(`${name} failed`, err);
      return errorResult(err, client().form);
    }
  });

  // An HTTP server makes one MCP server per client session: each stops listening when it closes.
  const unsubscribe = registerResources(server, opts.host);
  server.onclose = unsubscribe;
  return server;
}

/**
 * A secret asked through URL-mode elicitation (MCP 2025-11-25): the client is sent the address of
 * ptyhub's one-time page (one-time-page.ts) instead of a form, the human opens it and types the
 * secret there, and the call goes on with what the page received. The client only learns that the
 * human agreed to open the page and, once it was used, that the elicitation is complete.
 */
import { randomUUID } from "node:crypto";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ElicitResult } from "../../api/elicit.ts";
import { AppError } from "../../api/errors.ts";
import { logger } from "../../log.ts";
import { openSecretPage } from "./one-time-page.ts";
import type { SecretField } from "./page-html.ts";

const log = logger("secret-page");

/** The fields of an elicitation form schema (string properties), as the page asks for them. */
export function secretFields(schema: Record<string, unknown>): SecretField[] {
  const properties = schema.properties;
  if (typeof properties !== "object" || properties === null) return [];
  return Object.entries(properties).map(([key, raw]) => {
    const prop = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
    return {
      key,
      title: typeof prop.title === "string" ? prop.title : key,
      description: typeof prop.description === "string" ? prop.description : undefined,
    };
  });
}

/** Added to a secret asked in a form: the human should know it passes through their MCP client. */
const FORM_FALLBACK_NOTE =
  "(Form fallback: this client cannot open ptyhub's one-time secret page, so what you type here passes " +
  "through the MCP client on its way to the terminal. It is never shown to the AI agent.)";

/** A secret's question as a form shows it, where the page cannot be offered. */
export function formFallbackMessage(message: string): string {
  return `${message}\n\n${FORM_FALLBACK_NOTE}`;
}

/** What the client shows the human beside the page's address. */
export function pageMessage(message: string): string {
  return (
    `${message}\n\nOpen this one-time ptyhub page on this computer and type it there: it goes straight ` +
    "to the terminal, never through this client or the AI agent."
  );
}

/**
 * The page closed unanswered although the human agreed to open it. Said as it is: an answer
 * "cancel" would read as if the human had dismissed the question.
 */
export function pageExpired(ttlMs: number): AppError {
  return new AppError(
    "ELICITATION_UNSUPPORTED",
    `nobody typed the secret: ptyhub's one-time page expired unused after ${Math.round(ttlMs / 1000)} s`,
  );
}

export async function elicitOnSecretPage(
  server: Server,
  message: string,
  schema: Record<string, unknown>,
  opts: { ttlMs: number; signal?: AbortSignal },
): Promise<ElicitResult> {
  const fields = secretFields(schema);
  if (fields.length === 0) throw new Error("a secret elicitation without fields");
  const page = openSecretPage({ message, fields, ttlMs: opts.ttlMs });
  const stop = () => page.close();
  opts.signal?.addEventListener("abort", stop, { once: true });
  const elicitationId = randomUUID();
  try {
    const consent = await server.elicitInput(
      {
        mode: "url",
        elicitationId,
        url: page.url,
        message: pageMessage(message),
      },
      // The human may take as long as the page lives to agree to open it.
      { signal: opts.signal, timeout: opts.ttlMs },
    );
    if (consent.action !== "accept") return { action: consent.action };
    const values = await page.answer;
    if (values === null) {
      log.info(`secret page ${elicitationId} closed unanswered (expired or cancelled)`);
      if (opts.signal?.aborted) return { action: "cancel" };
      throw pageExpired(opts.ttlMs);
    }
    // Tells the client it may close its "waiting for the page" display; a failure changes nothing.
    await server
      .createElicitationCompletionNotifier(elicitationId)()
      .catch((err: Error) => log.info(`elicitation/complete not sent: ${err.message}`));
    return { action: "accept", content: values };
  } finally {
    opts.signal?.removeEventListener("abort", stop);
    page.close();
  }
}

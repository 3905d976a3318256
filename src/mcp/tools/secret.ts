import { defineTool } from "../tool.ts";
import { termSecretInput, termSecretOutput } from "../../api/methods/secret.ts";
import { AppError } from "../../api/errors.ts";

export const termSecret = defineTool({
  name: "term_secret",
  title: "Ask the human for a secret",
  description:
    'When a session waits for a password, passphrase or token (state "password"), ask the human for it through the ' +
    "client (MCP elicitation) and type it into the session. " +
    "The secret never reaches you, the logs, or any later output. Then follow up with term_read or term_send.",
  input: termSecretInput,
  output: termSecretOutput,
  annotations: { destructiveHint: false, openWorldHint: false },
  async run(args, ctx) {
    await ctx.host.call("check", { session: args.session }, ctx);
    const typeItYourself =
      `Ask the human to type it themselves: \`ptyhub attach ${args.session}\` in a terminal ` + "(ctrl+\\ detaches).";
    if (!ctx.elicit) {
      const why = "this MCP client cannot ask the human for input (no elicitation support)";
      throw new AppError("ELICITATION_UNSUPPORTED", why, typeItYourself);
    }
    // A question that ended without an answer (the one-time page expired) has the same way forward.
    const withAttachHint = (err: unknown): never => {
      if (err instanceof AppError && err.code === "ELICITATION_UNSUPPORTED" && !err.hint)
        throw new AppError(err.code, err.message, typeItYourself);
      throw err;
    };
    const answer = await ctx
      .elicit(
        args.prompt ?? `A secret for terminal session '${args.session}'`,
        {
          type: "object",
          properties: {
            secret: {
              type: "string",
              title: "Secret",
              description: "Typed into the terminal; never shown to the model.",
            },
          },
          required: ["secret"],
        },
        { secret: true },
      )
      .catch(withAttachHint);
    const secret = answer.content?.secret;
    // Clients in non-interactive mode (claude -p, codex exec) decline or cancel every request on
    // the human's behalf: the way forward is the same as without elicitation.
    if (answer.action !== "accept" || typeof secret !== "string") {
      // Nobody was asked when the client refused by itself (src/mcp/unasked.ts): say so.
      const why = answer.unaskedWhy
        ? `no secret was typed: nobody was asked: ${answer.unaskedWhy}`
        : `no secret was typed: the request was answered "${answer.action}"`;
      throw new AppError("ELICITATION_UNSUPPORTED", why, typeItYourself);
    }
    await ctx.host.call("typeSecret", { session: args.session, secret, enter: args.enter }, ctx);
    return { session: args.session, sent: true, action: "accept" as const };
  },
  text(r) {
    return `[secret typed into ${r.session}]`;
  },
});

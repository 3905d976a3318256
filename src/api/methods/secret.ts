/** term_secret: a secret asked of the human and typed, never shown to the model. */
import { z } from "zod";
import { sessionId } from "../fields.ts";

export const termSecretInput = z.strictObject({
  session: sessionId,
  prompt: z.string().max(500).optional().describe('What to ask the human, e.g. "sudo password for deploy@web1".'),
  enter: z.boolean().default(true).describe("Press Enter after the secret."),
});

export const termSecretOutput = z.object({
  session: z.string(),
  sent: z.boolean(),
  action: z.enum(["accept", "decline", "cancel"]),
});

/** The host's half of term_secret: the secret the human gave, typed into the session. */
export const typeSecretInput = z.strictObject({
  session: sessionId,
  secret: z.string().max(100_000),
  enter: z.boolean(),
});

export const typeSecretOutput = z.object({ session: z.string(), sent: z.literal(true) });

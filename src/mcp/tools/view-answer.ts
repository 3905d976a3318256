/**
 * The human's answer, in the MCP Apps view, to one of the guard's questions that its client's calls
 * wait on (app-only, app-visibility.ts; listed by term_view_questions, view-questions.ts).
 */
import { z } from "zod";
import { AppError } from "../../api/errors.ts";
import { defineTool } from "../tool.ts";
import { viewQuestionStore } from "./view-questions.ts";

export const termViewAnswer = defineTool({
  name: "term_view_answer",
  title: "Answer a guard question (terminal view)",
  description:
    "For ptyhub's terminal view only (MCP Apps, app-only): the human's approve (allow: true) or decline of one of " +
    "the guard's questions term_view_questions listed.",
  input: z.strictObject({
    id: z.string().min(1).max(100).describe("The question's id, from term_view_questions."),
    allow: z.boolean().describe("true approves, false declines."),
  }),
  output: z.object({ id: z.string(), allow: z.boolean() }),
  annotations: { openWorldHint: false },
  appOnly: true,
  async run(args, ctx) {
    if (!viewQuestionStore(ctx)?.answerFor(ctx.clientId, args.id, args.allow))
      throw new AppError(
        "INVALID_ARGUMENT",
        `no question ${args.id} waits for this client`,
        "It was answered, withdrawn (its call ended) or expired; list them again with term_view_questions.",
      );
    return { id: args.id, allow: args.allow };
  },
  text(r) {
    return `[question ${r.id} ${r.allow ? "approved" : "declined"}]`;
  },
});

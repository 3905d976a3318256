/**
 * The guard's questions in the MCP Apps view (app-only, app-visibility.ts): the questions this
 * client's calls are waiting on, where the client cannot put them to its human itself (no
 * elicitation, or it declines by itself), for the human to answer (term_view_answer). The same store as
 * the web view's (src/web/questions.ts); each view sees its own client's questions only.
 */
import { z } from "zod";
import { defineTool, type ToolContext, type ViewQuestions } from "../tool.ts";

const question = z.object({ id: z.string(), message: z.string(), asked_at: z.string() });

/** Where this client's questions wait; null where nobody keeps them. */
export function viewQuestionStore(ctx: ToolContext): ViewQuestions | null {
  return ctx.appView?.questions ?? null;
}

export const termViewQuestions = defineTool({
  name: "term_view_questions",
  title: "The guard's questions (terminal view)",
  description:
    "For ptyhub's terminal view only (MCP Apps, app-only): the guard's questions this client's calls wait on, for " +
    "the human watching the view to approve or decline.",
  input: z.strictObject({}),
  output: z.object({ questions: z.array(question) }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  appOnly: true,
  async run(_args, ctx) {
    const questions = viewQuestionStore(ctx)?.listFor(ctx.clientId) ?? [];
    return { questions: questions.map(({ id, message, asked_at }) => ({ id, message, asked_at })) };
  },
  text(r) {
    if (r.questions.length === 0) return "[no questions waiting]";
    return r.questions.map((q) => `${q.id}: ${q.message}`).join("\n");
  },
});

/**
 * Every MCP tool, in the order tools/list shows them; the MCP Apps view's own (app-only) tools last,
 * listed only to clients that render MCP Apps (app-view.ts).
 */
import type { ToolDef } from "../tool.ts";
import { termOpen } from "./open.ts";
import { termExec } from "./exec.ts";
import { termSend } from "./send.ts";
import { termRead } from "./read.ts";
import { termList } from "./list.ts";
import { termClose } from "./close.ts";
import { termResize } from "./resize.ts";
import { termSecret } from "./secret.ts";
import { termSerial } from "./serial.ts";
import { termViewInput } from "./view-input.ts";
import { termViewScreen } from "./view-screen.ts";
import { termViewQuestions } from "./view-questions.ts";
import { termViewAnswer } from "./view-answer.ts";

export const TOOLS: readonly ToolDef[] = [
  termExec,
  termOpen,
  termSend,
  termRead,
  termList,
  termClose,
  termResize,
  termSecret,
  termSerial,
  termViewScreen,
  termViewInput,
  termViewQuestions,
  termViewAnswer,
];

/** Every MCP tool, in the order tools/list shows them. */
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
];

/** What opening a container session takes and gives (container-open.ts, container-persist.ts). */
import type { SiteFiles } from "../site-files.ts";
import type { ProgramSpec } from "../descriptor.ts";
import type { Backend } from "../backend.ts";
import type { Integration, ShellFamily } from "../../terminal/shell-integration.ts";
import type { ContainerParams } from "./params.ts";

export interface ContainerOpenRequest extends ProgramSpec {
  container: ContainerParams;
  setupTimeoutMs: number;
}

export interface ContainerOpened {
  backend: Backend;
  target: string;
  integration: Integration;
  family: ShellFamily | null;
  cwd: string | null;
  startMark: boolean;
  /** The marks' nonce when the shell was started by the daemon inside. */
  nonce?: string;
  description: string;
  /** The container's files, for the guard. */
  files: SiteFiles;
}

/**
 * The xterm addons' typings import '@xterm/xterm', the browser terminal, which (since the web view
 * ships it) is installed and would pull lib.dom into the server's types. Under Bun the addons run
 * on @xterm/headless, so tsconfig maps that name here: the same classes, without the DOM.
 */
export type { IBufferRange, IMarker, ITerminalAddon, Terminal } from "@xterm/headless";

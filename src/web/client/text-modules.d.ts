/** The web view's browser files, imported as text (`with { type: "text" }`) so the binary carries them. */
declare module "*.css" {
  const text: string;
  export default text;
}
declare module "*.browser.js" {
  const text: string;
  export default text;
}
declare module "@xterm/xterm/lib/xterm.mjs" {
  const text: string;
  export default text;
}
declare module "@modelcontextprotocol/ext-apps/app-with-deps" {
  const text: string;
  export default text;
}

/** The tty's interrupt, quit and suspend characters (VINTR, VQUIT, VSUSP): each ends or stops the foreground job. */
const INTERRUPT_BYTES = [0x03, 0x1c, 0x1a];

/** Whether typed input carries a character the tty turns into SIGINT, SIGQUIT or SIGTSTP. */
export function carriesInterrupt(data: string | Uint8Array): boolean {
  if (typeof data === "string") return INTERRUPT_BYTES.some((b) => data.includes(String.fromCharCode(b)));
  return data.some((b) => INTERRUPT_BYTES.includes(b));
}

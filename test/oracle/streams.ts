/**
 * Byte streams for the reference-terminal oracle: what line editors, progress bars, pagers and
 * dialogs send, written out byte for byte (the sequences come from the programs named, as they
 * draw with TERM=xterm-256color). Each is parsed by tmux and by ptyhub's emulator at the same
 * size, and the screens must be equal row by row, cursor included, unless `choice` says why
 * ptyhub shows something else on purpose.
 */

export interface Stream {
  name: string;
  cols?: number;
  rows?: number;
  /** ptyhub's emulator gets the bytes in these reads (splits are where real reads split them). */
  chunks: string[];
  /** A documented difference: ptyhub's rows (trailing blanks trimmed), and why. */
  choice?: { rows: string[]; reason: string };
}

const ESC = "\x1b";
const CSI = `${ESC}[`;

/** The bare-CR progress-bar choice (src/terminal/cr-filter.ts), shared by the cases that show it. */
const PROGRESS_CHOICE =
  "A bare CR, then only plain text up to the line's end: ptyhub reads it as a progress line redrawn " +
  "(what the program meant) and erases the rest; a real terminal keeps the longer old text's tail.";

/** linenoise (redis-cli) redrawing its line after each key: CR, prompt + buffer, erase, CR, cursor forward. */
function linenoiseRefresh(prompt: string, buf: string): string {
  return `\r${prompt}${buf}${CSI}0K\r${CSI}${prompt.length + buf.length}C`;
}

const REDIS = "127.0.0.1:6379> ";

export const STREAMS: readonly Stream[] = [
  { name: "plain CR LF lines", chunks: ["one\r\ntwo\r\nthree\r\n"] },
  {
    name: "issue 22: prompt, text, bare CR, cursor forward (linenoise)",
    chunks: [`prompt> hello\r${CSI}13C`],
  },
  {
    name: "redis-cli: typing a command key by key, Enter, the reply, the next prompt",
    chunks: [
      REDIS,
      ..."get k".split("").map((_, i) => linenoiseRefresh(REDIS, "get k".slice(0, i + 1))),
      "\r\n",
      '"v"\r\n',
      REDIS,
    ],
  },
  {
    name: "linenoise refresh split across reads (a CR ends a read)",
    chunks: [`\r${REDIS}ge`, `t${CSI}0K\r`, `${CSI}19C`],
  },
  {
    name: "readline: history recall of a shorter line (CR, prompt, line, erase to end)",
    chunks: ["$ a rather long command line", `\r$ ls${CSI}K`],
  },
  {
    name: "readline: moving left by reprinting from the prompt, then backspaces",
    chunks: [">>> print(12345)", "\r>>> print(", "\b\b"],
  },
  {
    name: "a CR, then cursor moves over text that must stay",
    chunks: [`12345678\rab${CSI}2Cz\r\n`],
  },
  { name: "a CR, then a tab, then text", chunks: ["abcdefgh\r\tX\r\n"] },
  {
    name: "curl-style meter: fixed-width lines redrawn with CR",
    chunks: [
      "  % Total    % Received Xferd  Speed\r\n",
      "\r  0  100k    0     0     0",
      "\r 45  100k   45   45k  120k",
      "\r100  100k  100  100k  240k\r\n",
    ],
  },
  {
    name: "pip/rich-style bar: CR, erase line, redraw",
    chunks: [
      `\r${CSI}2K   ━━━━━━╺━━━━━━━ 1.2/3.4 MB 2.0 MB/s eta 0:00:02`,
      `\r${CSI}2K   ━━━━━━━━━━━━━━ 3.4/3.4 MB 2.5 MB/s\r\n`,
      "Successfully installed\r\n",
    ],
  },
  {
    name: "tqdm-style coloured bar, equal widths",
    chunks: [`\r${CSI}36m 40%${CSI}0m|████      |`, `\r${CSI}36m100%${CSI}0m|██████████|\r\n`],
  },
  {
    name: "apt-style progress line in the last row, a scroll region above",
    rows: 6,
    chunks: [
      `${ESC}7${CSI}1;5r${ESC}8`,
      "Unpacking a\r\nUnpacking b\r\n",
      `${ESC}7${CSI}6;1H${CSI}42m${CSI}30mProgress: [ 40%]${CSI}49m${CSI}39m [####......]${ESC}8`,
      "Unpacking c\r\nUnpacking d\r\nUnpacking e\r\nSetting up f\r\n",
    ],
  },
  {
    name: "bare CR progress rewritten shorter (the documented choice)",
    chunks: ["loading\rdone\r\n"],
    choice: { rows: ["done"], reason: PROGRESS_CHOICE },
  },
  {
    name: "coloured progress rewritten shorter (the documented choice, SGR between)",
    chunks: [`${CSI}32mdownloading 10%${CSI}0m`, `\r${CSI}1;32mdone${CSI}0m\r\n`, "next\r\n"],
    choice: { rows: ["done", "next"], reason: PROGRESS_CHOICE },
  },
  { name: "a line exactly as wide as the screen, then CR LF", cols: 20, chunks: ["abcdefghijklmnopqrst\r\nnext"] },
  { name: "a long line wraps", cols: 20, chunks: ["0123456789abcdefghij0123456789\r\n"] },
  { name: "wide characters wrap whole", cols: 11, chunks: ["日本語テキスト ok\r\n🎉x\r\n"] },
  { name: "backspace, insert, delete and erase characters", chunks: [`abcdef\b\b${CSI}@Z${CSI}2P${CSI}1X\r\n`] },
  {
    name: "save and restore the cursor, absolute moves, erase below and above",
    rows: 6,
    chunks: ["r1\r\nr2\r\nr3\r\nr4\r\n", `${ESC}7${CSI}2;3Hmid${CSI}J${ESC}8`, `${CSI}1;5H${CSI}1Jend`],
  },
  {
    name: "the alternate screen comes and goes; the normal screen is restored",
    chunks: ["before\r\n", `${CSI}?1049h${CSI}H${CSI}2Jfull screen`, `${CSI}?1049l`, "after\r\n"],
  },
  {
    name: "more lines than rows scroll",
    rows: 5,
    chunks: [Array.from({ length: 12 }, (_, i) => `l${i}`).join("\r\n")],
  },
  { name: "clear, then text", rows: 5, chunks: ["old 1\r\nold 2\r\n", `${CSI}H${CSI}2J${CSI}3J`, "new\r\n"] },
  { name: "reverse index at the top scrolls down", rows: 4, chunks: ["a\r\nb\r\nc", `${CSI}H${ESC}Mtop`] },
  {
    name: "DEC line drawing (dialog, ncurses boxes)",
    chunks: [`${ESC}(0lqqqk\r\nx   x\r\ntqqqu\r\nmqqqj${ESC}(B ok\r\n`],
  },
  { name: "tab stops set and cleared", chunks: [`${CSI}3g${CSI}1;6H${ESC}H\rA\tB\r\n`] },
];

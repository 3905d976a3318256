/**
 * Package installs (pip, npm/yarn/pnpm): download and progress chatter is dropped; what was
 * installed, warnings (each deprecation by name), errors, counts and the audit stay.
 */
import { dropLines, squeezeBlank, type Reducer } from "./types.ts";

const INSTALLERS = /\b(pip3?|uv\s+pip|npm|yarn|pnpm)\s+(install|i|add|ci)\b/;
const SNIFF = /^(Successfully installed |added \d+ packages)/m;

const NOISE = [
  new RegExp(
    "^\\s*(Collecting|Downloading|Using cached|Obtaining|Processing|Preparing metadata|Building wheel|Created wheel|" +
      "Stored in directory|Installing collected packages|Attempting uninstall|Found existing installation|" +
      "Uninstalling|" +
      "Successfully uninstalled|Getting requirements|Installing build dependencies|Looking in indexes)\\b",
  ),
  /^\s*[━█▌▍▎▏#=\-─ ]{10,}.*(\d+%|[kKMG]i?B|\d+\/\d+)/, // progress bars (bytes, percent, or packages done)
  /^\s*\d+(\.\d+)?\s*[kKMG]i?B\s.*eta/, // bare progress
  /^\[notice\] /, // pip's own upgrade nag
  /^\s*run `npm fund` for details$/,
  /^\S* ?(reify|idealTree|sill|timing|http fetch)\b/, // npm progress lines
];
const ALREADY = /^Requirement already satisfied: /;
const DEPRECATED = /^(npm (warn|WARN) deprecated \S+?): .*/;

export const installReducer: Reducer = {
  name: "package install",
  applies: (command, output) => INSTALLERS.test(command) || SNIFF.test(output),
  reduce(output) {
    let already = 0;
    let messages = 0;
    const { kept, dropped } = dropLines(output, (line) => {
      if (!ALREADY.test(line)) return NOISE.some((n) => n.test(line));
      already++;
      return true;
    });
    // A deprecation's name is the fact; its explanation is boilerplate.
    const lines = kept.map((line) => {
      const m = DEPRECATED.exec(line);
      if (!m) return line;
      messages++;
      return m[1]!;
    });
    if (already > 0) lines.push(`(${already} requirements already satisfied)`);
    if (dropped === 0 && messages === 0) return null;
    const parts = [`${dropped - already} download/progress lines`];
    if (already > 0) parts.push(`${already} "already satisfied" lines (counted)`);
    if (messages > 0) parts.push(`${messages} deprecation explanations`);
    return { text: squeezeBlank(lines).join("\n"), dropped: parts.join(", ") };
  },
};

/** The shell's questions before each command (src/session/judge-request.ts). */
import { describe, expect, test } from "bun:test";
import { ShellQuestions } from "../../src/session/judge-request.ts";

const ASKED = { text: "rm -rf build", yes: "y7q", no: "n3k" };

describe("ShellQuestions", () => {
  test("with no judge attached the command may run at once: the shell is not left waiting", () => {
    const sent: string[] = [];
    new ShellQuestions("nonce", (line) => sent.push(line)).asked(ASKED);
    expect(sent).toEqual(["y7q\n"]);
  });

  test("with a judge attached, the judge answers, and only it", () => {
    const sent: string[] = [];
    const questions = new ShellQuestions("nonce", (line) => sent.push(line));
    questions.on((request) => questions.answer(request, false));
    questions.asked(ASKED);
    expect(sent).toEqual(["n3k\n"]);
  });
});

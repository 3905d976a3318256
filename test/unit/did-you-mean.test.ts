/** "Did you mean": edit distance, and the closest word only when it is a plausible typo. */
import { describe, expect, test } from "bun:test";
import { closestWord, editDistance } from "../../src/util/did-you-mean.ts";

describe("did you mean", () => {
  test("edit distance counts insertions, deletions and substitutions", () => {
    expect(editDistance("cols", "cols")).toBe(0);
    expect(editDistance("colz", "cols")).toBe(1);
    expect(editDistance("lss", "ls")).toBe(1);
    expect(editDistance("dcotor", "doctor")).toBe(2);
    expect(editDistance("", "abc")).toBe(3);
  });

  test("the closest known word within two edits, else none", () => {
    const verbs = ["ls", "log", "kill", "doctor", "install"];
    expect(closestWord("lss", verbs)).toBe("ls");
    expect(closestWord("instal", verbs)).toBe("install");
    expect(closestWord("DOCTR", verbs)).toBe("doctor");
    expect(closestWord("frobnicate", verbs)).toBeUndefined();
  });
});

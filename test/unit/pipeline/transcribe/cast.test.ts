/** The speakers option: a count or names, from the API and the command line. */
import { expect, test } from "bun:test";
import { castOf, speakersArg, speakersFromFlag } from "../../../../src/pipeline/transcribe/cast.ts";

test("the speakers option: a number or names; the command line's form", () => {
  expect(castOf(3)).toEqual({ count: 3 });
  expect(castOf([" Ann ", "Bob"])).toEqual({ count: 2, names: ["Ann", "Bob"] });
  expect(castOf(undefined)).toBeUndefined();
  expect(speakersArg("3")).toBe(3);
  expect(speakersArg("Ann, Bob ,Cy")).toEqual(["Ann", "Bob", "Cy"]);
  expect(speakersFromFlag("Ann, Bob")).toEqual(["Ann", "Bob"]);
  expect(speakersFromFlag("1")).toContain("--speakers");
  expect(speakersFromFlag("Ann")).toContain("--speakers");
  expect(speakersFromFlag("Ann, ann")).toBe("--speakers: must not name anyone twice");
});

test("process and watch take --speakers through the job option's schema", async () => {
  const { jobOptionsFromArgs } = await import("../../../../src/cli/job-options.ts");
  expect(jobOptionsFromArgs({ speakers: "3" })).toEqual({ speakers: 3 });
  expect(jobOptionsFromArgs({ speakers: "Ann Lee, Bob" })).toEqual({ speakers: ["Ann Lee", "Bob"] });
  expect(jobOptionsFromArgs({ speakers: "11" })).toContain("speakers");
  expect(jobOptionsFromArgs({ speakers: "Ann" })).toContain("speakers");
});

import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT_DIR } from "../../src/config.ts";
import { ERRORS } from "../../src/errors.ts";

test("docs/api.md's error table is the error module's table", () => {
  const doc = readFileSync(join(ROOT_DIR, "docs/api.md"), "utf8");
  const table = doc.split("<!-- error-table:start -->")[1]!.split("<!-- error-table:end -->")[0]!;
  const rows = table
    .trim()
    .split("\n")
    .slice(2)
    .map((line) => line.split("|").map((c) => c.trim()).slice(1, 4));
  // Regenerate with: bun scripts/docs/error-table.ts
  const expected = Object.entries(ERRORS).map(([code, d]) => [`\`${code}\``, d.type, d.status === null ? "—" : String(d.status)]);
  expect(rows).toEqual(expected);
});

#!/usr/bin/env bun
/** Rewrites the error table in docs/api.md from src/errors.ts (test/unit/docs.test.ts checks they agree). */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT_DIR } from "../../src/config.ts";
import { ERRORS } from "../../src/errors.ts";

const path = join(ROOT_DIR, "docs/api.md");
const rows = Object.entries(ERRORS).map(([code, d]) => `| \`${code}\` | ${d.type} | ${d.status ?? "—"} | ${d.description} |`);
const table = ["| code | type | HTTP | when |", "|---|---|---|---|", ...rows].join("\n");
const doc = readFileSync(path, "utf8").replace(/<!-- error-table:start -->[\s\S]*<!-- error-table:end -->/, `<!-- error-table:start -->\n${table}\n<!-- error-table:end -->`);
writeFileSync(path, doc);

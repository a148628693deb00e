import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Drizzle view of the tables created by src/db/migrations.ts (kept in step by a test). */

export const orgs = sqliteTable("orgs", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: integer("created_at").notNull(),
});

export const apiKeys = sqliteTable("api_keys", {
  id: text("id").primaryKey(),
  orgId: text("org_id").notNull(),
  env: text("env", { enum: ["live", "test"] }).notNull(),
  secretHash: text("secret_hash").notNull(),
  hint: text("hint").notNull(),
  createdAt: integer("created_at").notNull(),
  revokedAt: integer("revoked_at"),
});

export const jobs = sqliteTable("jobs", {
  seq: integer("seq").primaryKey({ autoIncrement: true }),
  id: text("id").notNull(),
  orgId: text("org_id").notNull(),
  env: text("env", { enum: ["live", "test"] }).notNull(),
  status: text("status", { enum: ["queued", "processing", "complete", "failed"] }).notNull(),
  sourceType: text("source_type").notNull(),
  sourceUrl: text("source_url").notNull(),
  options: text("options").notNull(),
  createdAt: integer("created_at").notNull(),
  startedAt: integer("started_at"),
  completedAt: integer("completed_at"),
  output: text("output"),
  errorCode: text("error_code"),
  errorMessage: text("error_message"),
  runAfter: integer("run_after").notNull(),
  leaseOwner: text("lease_owner"),
  leaseExpiresAt: integer("lease_expires_at"),
  attempts: integer("attempts").notNull(),
  progress: text("progress"),
  shareTokenHash: text("share_token_hash"),
  requestId: text("request_id").notNull(),
});

export const idempotencyKeys = sqliteTable("idempotency_keys", {
  orgId: text("org_id").notNull(),
  env: text("env").notNull(),
  key: text("key").notNull(),
  requestHash: text("request_hash").notNull(),
  jobId: text("job_id").notNull(),
  createdAt: integer("created_at").notNull(),
});

export const settings = sqliteTable("settings", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
});

export type JobRow = typeof jobs.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;

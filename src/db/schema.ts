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
  /** Raised by a trigger on every update of the row (migration 13); never written by the application. */
  version: integer("version").notNull().default(0),
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

export const webhooks = sqliteTable("webhooks", {
  id: text("id").primaryKey(),
  orgId: text("org_id").notNull(),
  env: text("env", { enum: ["live", "test"] }).notNull(),
  url: text("url").notNull(),
  events: text("events").notNull(),
  secretEnc: text("secret_enc").notNull(),
  status: text("status", { enum: ["active", "disabled"] }).notNull(),
  consecutiveFailures: integer("consecutive_failures").notNull(),
  createdAt: integer("created_at").notNull(),
  disabledAt: integer("disabled_at"),
  deletedAt: integer("deleted_at"),
});

export const events = sqliteTable("events", {
  id: text("id").primaryKey(),
  orgId: text("org_id").notNull(),
  env: text("env", { enum: ["live", "test"] }).notNull(),
  type: text("type").notNull(),
  jobId: text("job_id"),
  requestId: text("request_id").notNull(),
  createdAt: integer("created_at").notNull(),
  payload: text("payload").notNull(),
});

export const deliveries = sqliteTable("deliveries", {
  seq: integer("seq").primaryKey({ autoIncrement: true }),
  id: text("id").notNull(),
  orgId: text("org_id").notNull(),
  webhookId: text("webhook_id").notNull(),
  eventId: text("event_id").notNull(),
  kind: text("kind", { enum: ["event", "test", "replay"] }).notNull(),
  status: text("status", { enum: ["pending", "succeeded", "failed"] }).notNull(),
  attemptCount: integer("attempt_count").notNull(),
  nextAttemptAt: integer("next_attempt_at"),
  leaseOwner: text("lease_owner"),
  leaseExpiresAt: integer("lease_expires_at"),
  createdAt: integer("created_at").notNull(),
  completedAt: integer("completed_at"),
  lastError: text("last_error"),
});

export const deliveryAttempts = sqliteTable("delivery_attempts", {
  deliveryId: text("delivery_id").notNull(),
  number: integer("number").notNull(),
  at: integer("at").notNull(),
  durationMs: integer("duration_ms").notNull(),
  httpStatus: integer("http_status"),
  error: text("error"),
});

export const feeds = sqliteTable("feeds", {
  id: text("id").primaryKey(),
  orgId: text("org_id").notNull(),
  env: text("env", { enum: ["live", "test"] }).notNull(),
  url: text("url").notNull(),
  since: integer("since"),
  options: text("options").notNull(),
  createdAt: integer("created_at").notNull(),
  deletedAt: integer("deleted_at"),
  nextPollAt: integer("next_poll_at").notNull(),
  leaseOwner: text("lease_owner"),
  leaseExpiresAt: integer("lease_expires_at"),
  etag: text("etag"),
  lastModified: text("last_modified"),
  lastPolledAt: integer("last_polled_at"),
  lastStatus: text("last_status", { enum: ["pending", "ok", "not_modified", "error"] }).notNull(),
  lastError: text("last_error"),
  itemsSeen: integer("items_seen").notNull(),
  jobsCreated: integer("jobs_created").notNull(),
});

export const feedItems = sqliteTable("feed_items", {
  feedId: text("feed_id").notNull(),
  itemKey: text("item_key").notNull(),
  enclosureUrl: text("enclosure_url").notNull(),
  publishedAt: integer("published_at"),
  jobId: text("job_id"),
  skippedReason: text("skipped_reason"),
  createdAt: integer("created_at").notNull(),
});

export const watchFiles = sqliteTable("watch_files", {
  folder: text("folder").notNull(),
  name: text("name").notNull(),
  size: integer("size").notNull(),
  mtimeMs: integer("mtime_ms").notNull(),
  orgId: text("org_id").notNull(),
  jobId: text("job_id"),
  skippedReason: text("skipped_reason"),
  outputWrittenAt: integer("output_written_at"),
  createdAt: integer("created_at").notNull(),
});

export type WatchFileRow = typeof watchFiles.$inferSelect;
export type FeedRow = typeof feeds.$inferSelect;
export type FeedItemRow = typeof feedItems.$inferSelect;
export type WebhookRow = typeof webhooks.$inferSelect;
export type EventRow = typeof events.$inferSelect;
export type DeliveryRow = typeof deliveries.$inferSelect;
export type AttemptRow = typeof deliveryAttempts.$inferSelect;
export type JobRow = typeof jobs.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;

// --- billing (tables from the "billing" migration) ---

export const billingProfiles = sqliteTable("billing_profiles", {
  orgId: text("org_id").primaryKey(),
  billingEmail: text("billing_email"),
});

export const topups = sqliteTable("topups", {
  id: text("id").primaryKey(),
  orgId: text("org_id").notNull(),
  provider: text("provider", { enum: ["stripe", "offline", "grant"] }).notNull(),
  amountCents: integer("amount_cents").notNull(),
  status: text("status", { enum: ["pending", "paid", "rejected"] }).notNull(),
  providerRef: text("provider_ref"),
  note: text("note"),
  createdAt: integer("created_at").notNull(),
  settledAt: integer("settled_at"),
});

export const creditLots = sqliteTable("credit_lots", {
  id: text("id").primaryKey(),
  orgId: text("org_id").notNull(),
  topupId: text("topup_id").notNull(),
  amountCents: integer("amount_cents").notNull(),
  remainingCents: integer("remaining_cents").notNull(),
  purchasedAt: integer("purchased_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
});

export const billingHolds = sqliteTable("billing_holds", {
  jobId: text("job_id").primaryKey(),
  orgId: text("org_id").notNull(),
  kind: text("kind", { enum: ["free", "paid"] }).notNull(),
  amountCents: integer("amount_cents").notNull(),
  status: text("status", { enum: ["active", "captured", "released"] }).notNull(),
  createdAt: integer("created_at").notNull(),
  settledAt: integer("settled_at"),
});

export const jobCharges = sqliteTable("job_charges", {
  jobId: text("job_id").primaryKey(),
  orgId: text("org_id").notNull(),
  free: integer("free", { mode: "boolean" }).notNull(),
  priceCents: integer("price_cents").notNull(),
  chargedCents: integer("charged_cents").notNull(),
  uncollectedCents: integer("uncollected_cents").notNull(),
  createdAt: integer("created_at").notNull(),
});

export const ledgerEntries = sqliteTable("ledger_entries", {
  seq: integer("seq").primaryKey({ autoIncrement: true }),
  orgId: text("org_id").notNull(),
  kind: text("kind", { enum: ["credit", "debit"] }).notNull(),
  amountCents: integer("amount_cents").notNull(),
  lotId: text("lot_id").notNull(),
  jobId: text("job_id"),
  topupId: text("topup_id"),
  createdAt: integer("created_at").notNull(),
});

export const receipts = sqliteTable("receipts", {
  id: text("id").primaryKey(),
  number: integer("number").notNull(),
  orgId: text("org_id").notNull(),
  topupId: text("topup_id").notNull(),
  amountCents: integer("amount_cents").notNull(),
  issuedAt: integer("issued_at").notNull(),
  text: text("text").notNull(),
  emailTo: text("email_to"),
  emailedAt: integer("emailed_at"),
  emailError: text("email_error"),
});

export const stripeEvents = sqliteTable("stripe_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  receivedAt: integer("received_at").notNull(),
});

export const dashboardLoginTokens = sqliteTable("dashboard_login_tokens", {
  tokenHash: text("token_hash").primaryKey(),
  orgId: text("org_id").notNull(),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
  usedAt: integer("used_at"),
});

export const dashboardSessions = sqliteTable("dashboard_sessions", {
  idHash: text("id_hash").primaryKey(),
  orgId: text("org_id").notNull(),
  csrfToken: text("csrf_token").notNull(),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
});

export const uploads = sqliteTable("uploads", {
  id: text("id").primaryKey(),
  orgId: text("org_id").notNull(),
  env: text("env", { enum: ["live", "test"] }).notNull(),
  status: text("status", { enum: ["receiving", "complete"] }).notNull(),
  size: integer("size"),
  filename: text("filename"),
  createdAt: integer("created_at").notNull(),
  completedAt: integer("completed_at"),
  expiresAt: integer("expires_at").notNull(),
});

export type UploadRow = typeof uploads.$inferSelect;
export type TopupRow = typeof topups.$inferSelect;
export type CreditLotRow = typeof creditLots.$inferSelect;
export type HoldRow = typeof billingHolds.$inferSelect;
export type LedgerRow = typeof ledgerEntries.$inferSelect;
export type ReceiptRow = typeof receipts.$inferSelect;

export const clipRenders = sqliteTable("clip_renders", {
  id: text("id").primaryKey(),
  jobId: text("job_id").notNull(),
  orgId: text("org_id").notNull(),
  env: text("env", { enum: ["live", "test"] }).notNull(),
  clipId: text("clip_id").notNull(),
  params: text("params").notNull(),
  idempotencyKey: text("idempotency_key"),
  requestHash: text("request_hash").notNull(),
  status: text("status", { enum: ["queued", "rendering", "complete", "failed"] }).notNull(),
  leaseOwner: text("lease_owner"),
  leaseExpiresAt: integer("lease_expires_at"),
  attempts: integer("attempts").notNull(),
  error: text("error"),
  createdAt: integer("created_at").notNull(),
  completedAt: integer("completed_at"),
  startedAt: integer("started_at"),
});
export type ClipRenderRow = typeof clipRenders.$inferSelect;

export const rateHits = sqliteTable("rate_hits", {
  bucket: text("bucket").notNull(),
  at: integer("at").notNull(),
});

export const orgBrand = sqliteTable("org_brand", {
  orgId: text("org_id").notNull(),
  env: text("env", { enum: ["live", "test"] }).notNull(),
  settings: text("settings").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

export const orgVocabulary = sqliteTable("org_vocabulary", {
  orgId: text("org_id").notNull(),
  env: text("env", { enum: ["live", "test"] }).notNull(),
  entries: text("entries").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

import { homedir } from "node:os";
import { dirname, isAbsolute, resolve } from "node:path";
import { z } from "zod";

/** True inside the single executable built by `bun build --compile` (scripts/build-binary.sh). */
export const COMPILED = import.meta.dir.startsWith("/$bunfs");

/** Repository root, or the folder holding the compiled binary. Vendored runtimes hang off it. */
export const ROOT_DIR = COMPILED ? dirname(process.execPath) : resolve(import.meta.dir, "..");

/** What `clipyard serve` runs on a node (docs/scale-out.md): the setting's and `--role`'s values. */
export const ROLES = ["all", "api", "worker"] as const;

const flag = z
  .string()
  .optional()
  .transform((v) => v !== undefined && ["1", "true", "yes", "on"].includes(v.toLowerCase()));

/**
 * Every setting the appliance reads, with its default. One schema: validated once at start-up,
 * documented in the README's configuration table.
 */
const EnvSchema = z.object({
  CLIPYARD_PORT: z.coerce.number().int().min(0).max(65535).default(8787),
  CLIPYARD_HOST: z.string().default("127.0.0.1"),
  CLIPYARD_DATA_DIR: z.string().default("./data"),
  CLIPYARD_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/[^/]/, "must be a postgres:// URL")
    .optional(),
  CLIPYARD_PUBLIC_URL: z.string().url().optional(),
  CLIPYARD_TIME_SCALE: z.coerce.number().positive().default(1),
  CLIPYARD_ALLOW_PRIVATE_NETWORK: flag,
  CLIPYARD_ALLOW_HTTP: flag,
  CLIPYARD_MODELS_DIR: z.string().optional(),
  CLIPYARD_MODEL_MIRROR: z.string().optional(),
  CLIPYARD_SPEECH_DIR: z.string().optional(),
  CLIPYARD_MAX_MEDIA_BYTES: z.coerce.number().int().positive().default(4 * 1024 ** 3),
  CLIPYARD_MAX_MEDIA_SECONDS: z.coerce.number().positive().default(4 * 3600),
  CLIPYARD_DISK_RESERVE_BYTES: z.coerce.number().int().min(0).optional(),
  CLIPYARD_UPLOAD_QUOTA_BYTES: z.coerce.number().int().positive().default(20 * 1024 ** 3),
  CLIPYARD_FEED_POLL_SECONDS: z.coerce.number().positive().default(900),
  CLIPYARD_WATCH_SETTLE_SECONDS: z.coerce.number().positive().default(2),
  CLIPYARD_LOCAL_FILE_DIRS: z
    .string()
    .refine((v) => v.split(":").every((d) => d === "" || isAbsolute(d)), "must be absolute folders separated by ':'")
    .optional(),
  CLIPYARD_FEED_MAX_BYTES: z.coerce.number().int().min(1024).default(10 * 1024 * 1024),
  CLIPYARD_FEED_MAX_ITEMS: z.coerce.number().int().min(1).max(10_000).default(200),
  CLIPYARD_MAX_FEEDS_PER_ORG: z.coerce.number().int().min(1).default(20),
  CLIPYARD_MAX_LIVE_JOBS_PER_ORG: z.coerce.number().int().min(1).optional(),
  CLIPYARD_DOWNLOAD_STALL_SECONDS: z.coerce.number().positive().default(60),
  CLIPYARD_MAX_QUEUED_RENDERS_PER_ORG: z.coerce.number().int().min(1).default(10),
  CLIPYARD_SECRET_KEY: z
    .string()
    .refine((v) => /^[A-Za-z0-9+/]{43}=$/.test(v) && Buffer.from(v, "base64").length === 32, "must be 32 random bytes in base64 (openssl rand -base64 32)")
    .optional(),
  CLIPYARD_ROLE: z.enum(ROLES).default("all"),
  CLIPYARD_WORKERS: z.coerce.number().int().min(1).max(16).default(1),
  CLIPYARD_LEASE_SECONDS: z.coerce.number().min(5).max(3600).default(60),
  CLIPYARD_LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  CLIPYARD_LLM_URL: z.string().url().optional(),
  CLIPYARD_LLM_MODEL: z.string().min(1).optional(),
  CLIPYARD_LLM_KEY: z.string().optional(),
  CLIPYARD_LLM_TIMEOUT_SECONDS: z.coerce.number().positive().default(60),
  CLIPYARD_STORAGE_URL: z.string().min(1).optional(),
  CLIPYARD_STORAGE_PROXY: flag,
  AWS_ACCESS_KEY_ID: z.string().optional(),
  AWS_SECRET_ACCESS_KEY: z.string().optional(),
  AWS_SESSION_TOKEN: z.string().optional(),
  FFMPEG_PATH: z.string().optional(),
  YTDLP_PATH: z.string().optional(),
});

/** What CLIPYARD_STORAGE_URL names, with the credentials from the AWS_* variables. */
export interface S3Settings {
  bucket: string;
  /** Every key goes under this prefix ("" or ending in "/"), so appliances can share a bucket with other things. */
  prefix: string;
  endpoint?: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
}

/**
 * CLIPYARD_STORAGE_URL, `s3://BUCKET[/PREFIX]?endpoint=URL&region=NAME`, parsed or refused with a
 * sentence that names what is wrong (it is read once at start-up).
 */
export function parseStorageUrl(raw: string): Omit<S3Settings, "accessKeyId" | "secretAccessKey" | "sessionToken"> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`not a URL; expected s3://BUCKET?endpoint=https://…&region=…`);
  }
  if (url.protocol !== "s3:") throw new Error(`scheme ${url.protocol} is not supported; expected s3://BUCKET?endpoint=https://…&region=…`);
  // new URL() lowercases the host; S3 bucket names are lowercase anyway, and a capital would be refused there.
  const bucket = url.hostname;
  if (!bucket) throw new Error("the bucket is missing; expected s3://BUCKET?endpoint=https://…&region=…");
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new Error(`${bucket} is not a valid bucket name`);
  if (url.username || url.password) throw new Error("credentials do not belong in the URL; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
  const known = new Set(["endpoint", "region"]);
  for (const k of url.searchParams.keys()) if (!known.has(k)) throw new Error(`unknown parameter ${k}; expected endpoint and region`);
  const endpoint = url.searchParams.get("endpoint") ?? undefined;
  if (endpoint !== undefined) {
    let e: URL;
    try {
      e = new URL(endpoint);
    } catch {
      throw new Error(`endpoint ${endpoint} is not a URL`);
    }
    if (e.protocol !== "https:" && e.protocol !== "http:") throw new Error(`endpoint ${endpoint} is not an http(s) URL`);
  }
  const path = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, "");
  if (path && !/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(path)) throw new Error(`prefix ${path} may hold only letters, digits, ".", "_", "-" and "/"`);
  return { bucket, prefix: path ? `${path}/` : "", endpoint: endpoint?.replace(/\/+$/, ""), region: url.searchParams.get("region") ?? "us-east-1" };
}

export type Config = {
  port: number;
  host: string;
  dataDir: string;
  /** PostgreSQL for the appliance's state (a cluster of nodes shares it); absent: SQLite in dataDir. */
  databaseUrl?: string;
  publicUrl: string;
  timeScale: number;
  allowPrivateNetwork: boolean;
  allowHttp: boolean;
  modelsDir: string;
  modelMirror?: string;
  /** Where `clipyard runtime install` keeps the speech runtime (a Python virtual environment). */
  speechDir: string;
  maxMediaBytes: number;
  maxMediaSeconds: number;
  /** Bytes kept free on the data disk (uploads and new jobs are refused below it); absent: max(1 GiB, 5 % of the disk up to 10 GiB). */
  diskReserveBytes?: number;
  /** Bytes of unfinished and kept uploads one organisation may hold on the appliance. */
  uploadQuotaBytes: number;
  /** The key sealing webhook secrets, shared by every node of a cluster; absent: a key file in dataDir. */
  secretKey?: string;
  /** What `clipyard serve` runs on this node: all (one appliance), api (HTTP only) or worker (scheduler and pipeline). */
  role: (typeof ROLES)[number];
  workers: number;
  /** How long a worker's claim on a live job lasts without a heartbeat: a dead worker's job is taken over after it. */
  leaseSeconds: number;
  /** Seconds between two polls of a podcast feed (before the time scale). */
  feedPollSeconds: number;
  /** How long a file in a watched folder must keep its size and mtime before it counts as copied (real seconds: copies are not sped up). */
  watchSettleSeconds: number;
  /** The folders MCP's local_file may read from (never their dot-folders, never the data directory). */
  localFileDirs: string[];
  /** Largest feed document read, in bytes. */
  feedMaxBytes: number;
  /** Only a feed's newest this-many episodes are considered at a poll (and recorded). */
  feedMaxItems: number;
  /** Feeds an organisation may have registered at once, both worlds together. */
  maxFeedsPerOrg: number;
  /** Live jobs one organisation may have acquiring or running at once on this node (default: half its workers, rounded up). */
  maxLiveJobsPerOrg: number;
  /** A media download receiving less than 64 KiB in this many seconds fails with media_fetch_failed (real seconds). */
  downloadStallSeconds: number;
  /** Re-renders one organisation may have queued or rendering at once. */
  maxQueuedRendersPerOrg: number;
  logLevel: "debug" | "info" | "warn" | "error";
  ffmpegPath?: string;
  ytdlpPath?: string;
  /**
   * Shared object storage for scale-out (CLIPYARD_STORAGE_URL); absent, outputs, checkpoints and
   * uploads stay under the data directory. `proxy`: media are streamed through the appliance
   * instead of redirected to presigned URLs.
   */
  storage?: S3Settings & { proxy: boolean };
  /** The optional language-model editor: an OpenAI-compatible chat endpoint (Ollama, llama.cpp server, vLLM). */
  llm?: { url: string; model: string; key?: string; timeoutMs: number };
};

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`invalid configuration: ${String(issue.path[0])}: ${issue.message}`);
  }
  const e = parsed.data;
  if (e.CLIPYARD_LLM_URL && !e.CLIPYARD_LLM_MODEL) throw new Error("invalid configuration: CLIPYARD_LLM_MODEL: required when CLIPYARD_LLM_URL is set");
  let storage: Config["storage"];
  if (e.CLIPYARD_STORAGE_URL) {
    try {
      storage = {
        ...parseStorageUrl(e.CLIPYARD_STORAGE_URL),
        accessKeyId: e.AWS_ACCESS_KEY_ID || undefined,
        secretAccessKey: e.AWS_SECRET_ACCESS_KEY || undefined,
        sessionToken: e.AWS_SESSION_TOKEN || undefined,
        proxy: e.CLIPYARD_STORAGE_PROXY,
      };
    } catch (err) {
      throw new Error(`invalid configuration: CLIPYARD_STORAGE_URL: ${(err as Error).message}`);
    }
  } else if (e.CLIPYARD_STORAGE_PROXY) throw new Error("invalid configuration: CLIPYARD_STORAGE_PROXY: only meaningful with CLIPYARD_STORAGE_URL");
  const dataDir = resolve(e.CLIPYARD_DATA_DIR);
  const host = e.CLIPYARD_HOST;
  const displayHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  return {
    port: e.CLIPYARD_PORT,
    host,
    dataDir,
    databaseUrl: e.CLIPYARD_DATABASE_URL,
    publicUrl: (e.CLIPYARD_PUBLIC_URL ?? `http://${displayHost}:${e.CLIPYARD_PORT}`).replace(/\/+$/, ""),
    timeScale: e.CLIPYARD_TIME_SCALE,
    allowPrivateNetwork: e.CLIPYARD_ALLOW_PRIVATE_NETWORK,
    allowHttp: e.CLIPYARD_ALLOW_HTTP,
    // A checkout keeps models in the repo; the binary keeps them next to its data directory.
    modelsDir: resolve(e.CLIPYARD_MODELS_DIR ?? (COMPILED ? resolve(dataDir, "..", "models") : resolve(ROOT_DIR, "models"))),
    modelMirror: e.CLIPYARD_MODEL_MIRROR,
    // Same split as models: scripts/setup/asr.sh's folder in a checkout, beside the data directory for the binary.
    speechDir: resolve(e.CLIPYARD_SPEECH_DIR ?? (COMPILED ? resolve(dataDir, "..", "speech-venv") : resolve(ROOT_DIR, ".vendor", "speech-venv"))),
    maxMediaBytes: e.CLIPYARD_MAX_MEDIA_BYTES,
    maxMediaSeconds: e.CLIPYARD_MAX_MEDIA_SECONDS,
    diskReserveBytes: e.CLIPYARD_DISK_RESERVE_BYTES,
    uploadQuotaBytes: e.CLIPYARD_UPLOAD_QUOTA_BYTES,
    secretKey: e.CLIPYARD_SECRET_KEY,
    role: e.CLIPYARD_ROLE,
    workers: e.CLIPYARD_WORKERS,
    leaseSeconds: e.CLIPYARD_LEASE_SECONDS,
    feedPollSeconds: e.CLIPYARD_FEED_POLL_SECONDS,
    watchSettleSeconds: e.CLIPYARD_WATCH_SETTLE_SECONDS,
    localFileDirs: e.CLIPYARD_LOCAL_FILE_DIRS ? e.CLIPYARD_LOCAL_FILE_DIRS.split(":").filter(Boolean).map((d) => resolve(d)) : [homedir()],
    feedMaxBytes: e.CLIPYARD_FEED_MAX_BYTES,
    feedMaxItems: e.CLIPYARD_FEED_MAX_ITEMS,
    maxFeedsPerOrg: e.CLIPYARD_MAX_FEEDS_PER_ORG,
    maxLiveJobsPerOrg: e.CLIPYARD_MAX_LIVE_JOBS_PER_ORG ?? Math.ceil(e.CLIPYARD_WORKERS / 2),
    downloadStallSeconds: e.CLIPYARD_DOWNLOAD_STALL_SECONDS,
    maxQueuedRendersPerOrg: e.CLIPYARD_MAX_QUEUED_RENDERS_PER_ORG,
    logLevel: e.CLIPYARD_LOG_LEVEL,
    ffmpegPath: e.FFMPEG_PATH,
    ytdlpPath: e.YTDLP_PATH,
    storage,
    llm: e.CLIPYARD_LLM_URL
      ? { url: e.CLIPYARD_LLM_URL, model: e.CLIPYARD_LLM_MODEL!, key: e.CLIPYARD_LLM_KEY || undefined, timeoutMs: e.CLIPYARD_LLM_TIMEOUT_SECONDS * 1000 }
      : undefined,
  };
}

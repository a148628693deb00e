import { FileStore } from "@tus/file-store";
import { EVENTS, Server } from "@tus/server";
import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { ApiError } from "../errors.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import type { UploadRow } from "../db/schema.ts";
import { uploadFilePath, uploadInfoPath, uploadsDir } from "../pipeline/acquire.ts";
import { uploadInfoKey, uploadKey, type ObjectStore } from "../storage/index.ts";
import { insufficientStorage, isOutOfSpace, type DiskReserve } from "../storage/disk-space.ts";
import { deleteUpload, findOwnUpload, insertUpload, markUploadComplete, newUploadId, renewUnfinishedUpload, uploadBytesHeld, type UploadOwner } from "./store.ts";

/** How often a raw upload re-checks the disk reserve and the quota while its body streams in. */
const RECHECK_EVERY_BYTES = 8 * 1024 * 1024;

/** The path every tus request shares; upload URLs are this plus the upload id. */
export const UPLOADS_PATH = "/v1/uploads";

/**
 * Receives media two ways, both streamed to disk under the data directory's uploads/ folder, never
 * held in memory: the tus 1.0 resumable protocol (creation, PATCH in chunks, HEAD to resume,
 * termination) through @tus/server's FileStore, and a single raw request body for scripts. Either
 * way the upload gets a row owned by the caller's organisation and environment, and the folder
 * holds the same two files: the media and tus's JSON metadata beside it.
 *
 * With shared storage (CLIPYARD_STORAGE_URL) a completed upload moves to the bucket (uploads/<id>
 * and uploads/<id>.json) before the client hears it is complete, so a worker on any machine can
 * acquire it. tus still receives onto this node's disk (@tus/file-store) rather than into S3 through
 * @tus/s3-store: that store brings the AWS SDK and keeps each PATCH as a multipart part (5 MiB
 * minimum, tus chunks are often smaller), while the file store needs nothing new; the price is that
 * the requests of one unfinished upload must reach the node that received its first bytes.
 */
export class UploadService {
  private readonly tus: Server;
  /** tus calls its hooks with the Request it was handed, so the owner travels with the request. */
  private readonly owners = new WeakMap<Request, UploadOwner>();
  /**
   * The upload id the access check authorised for a request. tus reads the id from this alone,
   * never from the URL: a request without one names no upload.
   */
  private readonly authorisedIds = new WeakMap<Request, string>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly dataDir: string,
    private readonly maxBytes: number,
    private readonly space: { disk: DiskReserve; quotaBytes: number },
    private readonly store?: ObjectStore,
  ) {
    mkdirSync(uploadsDir(dataDir), { recursive: true });
    this.tus = new Server({
      path: UPLOADS_PATH,
      datastore: new FileStore({ directory: uploadsDir(dataDir) }),
      maxSize: maxBytes,
      namingFunction: () => newUploadId(),
      getFileIdFromRequest: (req) => this.authorisedIds.get(req as unknown as Request),
      onUploadCreate: async (req, upload) => {
        const owner = this.owners.get(req as unknown as Request);
        if (!owner) throw { status_code: 500, body: "upload without an owner\n" };
        insertUpload(this.db, this.clock, owner, upload.id, { size: upload.size ?? null, filename: upload.metadata?.filename ?? null, complete: false });
        return {};
      },
      onUploadFinish: async (_req, upload) => {
        if (this.store?.shared) await this.moveToStore(upload.id);
        markUploadComplete(this.db, this.clock, upload.id, upload.offset);
        return {};
      },
    });
    this.tus.on(EVENTS.POST_TERMINATE, (_req, _res, id: string) => deleteUpload(this.db, id));
  }

  /**
   * A tus request: POST creates; HEAD/PATCH/DELETE act on upload `id`, which the caller has already
   * checked belongs to `owner`, whatever else the URL says.
   */
  async handleTus(request: Request, owner: UploadOwner, id?: string): Promise<Response> {
    const row = id === undefined ? undefined : this.find(owner, id);
    if (row && this.store?.shared && (request.method === "HEAD" || request.method === "DELETE")) {
      if (row.status === "complete") return this.completedInStore(request, row, this.store);
    }
    // A creation declares every byte still to come: the disk must hold them all, not just this request's.
    if (request.method === "POST") this.admit(owner, headerBytes(request, "upload-length"), Math.max(headerBytes(request, "upload-length"), headerBytes(request, "content-length")));
    if (request.method === "PATCH") this.admit(owner, row?.size === null ? headerBytes(request, "content-length") : 0, headerBytes(request, "content-length"));
    this.owners.set(request, owner);
    if (id !== undefined) this.authorisedIds.set(request, id);
    const response = await this.tus.handleWeb(request);
    // The file store reports a full disk as a 500 with the system's text; the bytes it did write stay,
    // so the client can resume from the upload's offset once space is freed.
    if (response.status >= 500 && isOutOfSpace(await response.clone().text())) throw insufficientStorage();
    if (request.method === "PATCH" && response.status === 204 && id !== undefined) renewUnfinishedUpload(this.db, this.clock, id);
    return response;
  }

  /**
   * Refuses new bytes that would take the data disk under its reserve (`writing`: what this request
   * sends now) or the organisation past its upload quota (`claiming`: what it adds to its total).
   */
  private admit(owner: UploadOwner, claiming: number, writing: number): void {
    this.space.disk.require(writing);
    if (claiming === 0) return;
    const held = uploadBytesHeld(this.db, this.clock, owner.orgId, (id) => this.receivedBytes(id));
    if (held + claiming > this.space.quotaBytes) {
      throw new ApiError(
        "upload_quota_exceeded",
        `This organisation's uploads hold ${held} bytes; ${claiming} more would pass its quota of ${this.space.quotaBytes} (CLIPYARD_UPLOAD_QUOTA_BYTES). Finish, submit or delete uploads, or wait for unused ones to expire.`,
      );
    }
  }

  /** tus discovery (OPTIONS): protocol version, extensions and the size limit; no upload is touched. */
  describe(request: Request): Promise<Response> {
    return this.tus.handleWeb(request);
  }

  /** The owner's upload, if it exists for them and has not expired. */
  find(owner: UploadOwner, id: string): UploadRow | undefined {
    return findOwnUpload(this.db, this.clock, owner, id);
  }

  /** Bytes on disk so far: a tus upload's offset. */
  receivedBytes(id: string): number {
    try {
      return statSync(uploadFilePath(this.dataDir, id)).size;
    } catch {
      return 0;
    }
  }

  /**
   * A whole file as the request body, streamed to a temporary name and moved into place only when
   * complete, so a dropped connection leaves no half upload behind. Refused past the size limit,
   * from Content-Length when sent, else as soon as the stream passes it.
   */
  async receiveRaw(body: ReadableStream<Uint8Array> | null, declaredBytes: number | null, owner: UploadOwner, filename: string | null): Promise<UploadRow> {
    if (declaredBytes !== null && declaredBytes > this.maxBytes) throw this.tooLarge();
    this.admit(owner, declaredBytes ?? 0, declaredBytes ?? 0);
    const id = newUploadId();
    const final = uploadFilePath(this.dataDir, id);
    const partial = `${final}.partial`;
    // A file handle, not Bun's FileSink: every write's failure (ENOSPC above all) comes back to this
    // await, where it is answered and the partial file removed, instead of surfacing on its own.
    const file = await open(partial, "w").catch((err) => {
      throw isOutOfSpace(err) ? insufficientStorage() : err;
    });
    let size = 0;
    let checkedAt = 0;
    try {
      if (body) {
        for await (const chunk of body) {
          size += chunk.byteLength;
          if (size > this.maxBytes) throw this.tooLarge();
          // Without Content-Length nothing was admitted up front: check as the bytes arrive.
          if (declaredBytes === null && size - checkedAt >= RECHECK_EVERY_BYTES) {
            this.admit(owner, size, size - checkedAt);
            checkedAt = size;
          }
          await file.write(chunk);
        }
      }
      await file.close();
      if (size === 0) throw new ApiError("invalid_body", "The upload is empty: send the file as the request body.");
      renameSync(partial, final);
      const info = { id, size, offset: size, metadata: filename ? { filename } : {}, creation_date: new Date(this.clock.now()).toISOString() };
      writeFileSync(uploadInfoPath(this.dataDir, id), JSON.stringify(info));
    } catch (err) {
      await file.close().catch(() => {});
      rmSync(partial, { force: true });
      rmSync(final, { force: true });
      rmSync(uploadInfoPath(this.dataDir, id), { force: true });
      throw isOutOfSpace(err) ? insufficientStorage() : err;
    }
    if (this.store?.shared) await this.moveToStore(id);
    return insertUpload(this.db, this.clock, owner, id, { size, filename, complete: true });
  }

  /** The bucket becomes the upload's only home: no node keeps a copy another could miss. */
  private async moveToStore(id: string): Promise<void> {
    const store = this.store!;
    await store.putFile(uploadKey(id), uploadFilePath(this.dataDir, id));
    await store.putText(uploadInfoKey(id), await Bun.file(uploadInfoPath(this.dataDir, id)).text());
    rmSync(uploadFilePath(this.dataDir, id), { force: true });
    rmSync(uploadInfoPath(this.dataDir, id), { force: true });
  }

  /**
   * tus HEAD (a client checking how far it got) and DELETE (termination) for an upload already moved
   * to the bucket: the file store no longer has it, and would answer 404.
   */
  private async completedInStore(request: Request, row: UploadRow, store: ObjectStore): Promise<Response> {
    const tus = { "tus-resumable": "1.0.0", "cache-control": "no-store" };
    if (request.method === "HEAD") {
      const size = String(row.size ?? 0);
      return new Response(null, { status: 200, headers: { ...tus, "upload-offset": size, "upload-length": size } });
    }
    await store.delete(uploadKey(row.id));
    await store.delete(uploadInfoKey(row.id));
    deleteUpload(this.db, row.id);
    return new Response(null, { status: 204, headers: tus });
  }

  private tooLarge(): ApiError {
    return new ApiError("body_too_large", `The upload exceeds ${this.maxBytes} bytes (CLIPYARD_MAX_MEDIA_BYTES).`);
  }
}

/** A numeric header's value, 0 when absent or not a number (tus validates its own headers). */
function headerBytes(request: Request, name: string): number {
  const n = Number(request.headers.get(name) ?? 0);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

import { FileStore } from "@tus/file-store";
import { EVENTS, Server } from "@tus/server";
import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { ApiError } from "../errors.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import type { UploadRow } from "../db/schema.ts";
import { uploadFilePath, uploadInfoPath, uploadsDir } from "../pipeline/acquire.ts";
import { uploadInfoKey, uploadKey, type ObjectStore } from "../storage/index.ts";
import { deleteUpload, findOwnUpload, insertUpload, markUploadComplete, newUploadId, type UploadOwner } from "./store.ts";

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
  handleTus(request: Request, owner: UploadOwner, id?: string): Promise<Response> {
    if (id !== undefined && this.store?.shared && (request.method === "HEAD" || request.method === "DELETE")) {
      const row = this.find(owner, id);
      if (row?.status === "complete") return this.completedInStore(request, row, this.store);
    }
    this.owners.set(request, owner);
    if (id !== undefined) this.authorisedIds.set(request, id);
    return this.tus.handleWeb(request);
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
    const id = newUploadId();
    const final = uploadFilePath(this.dataDir, id);
    const partial = `${final}.partial`;
    const sink = Bun.file(partial).writer();
    let size = 0;
    try {
      if (body) {
        for await (const chunk of body) {
          size += chunk.byteLength;
          if (size > this.maxBytes) throw this.tooLarge();
          sink.write(chunk);
          await sink.flush();
        }
      }
      await sink.end();
      if (size === 0) throw new ApiError("invalid_body", "The upload is empty: send the file as the request body.");
    } catch (err) {
      await Promise.resolve(sink.end()).catch(() => {});
      rmSync(partial, { force: true });
      throw err;
    }
    renameSync(partial, final);
    const info = { id, size, offset: size, metadata: filename ? { filename } : {}, creation_date: new Date(this.clock.now()).toISOString() };
    writeFileSync(uploadInfoPath(this.dataDir, id), JSON.stringify(info));
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

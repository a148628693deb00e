import { FileStore } from "@tus/file-store";
import { EVENTS, Server } from "@tus/server";
import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { ApiError } from "../errors.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import type { UploadRow } from "../db/schema.ts";
import { uploadFilePath, uploadInfoPath, uploadsDir } from "../pipeline/acquire.ts";
import { deleteUpload, findOwnUpload, insertUpload, markUploadComplete, newUploadId, type UploadOwner } from "./store.ts";

/** The path every tus request shares; upload URLs are this plus the upload id. */
export const UPLOADS_PATH = "/v1/uploads";

/**
 * Receives media two ways, both streamed to disk under the data directory's uploads/ folder, never
 * held in memory: the tus 1.0 resumable protocol (creation, PATCH in chunks, HEAD to resume,
 * termination) through @tus/server's FileStore, and a single raw request body for scripts. Either
 * way the upload gets a row owned by the caller's organisation and environment, and the folder
 * holds the same two files: the media and tus's JSON metadata beside it.
 */
export class UploadService {
  private readonly tus: Server;
  /** tus calls its hooks with the Request it was handed, so the owner travels with the request. */
  private readonly owners = new WeakMap<Request, UploadOwner>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly dataDir: string,
    private readonly maxBytes: number,
  ) {
    mkdirSync(uploadsDir(dataDir), { recursive: true });
    this.tus = new Server({
      path: UPLOADS_PATH,
      datastore: new FileStore({ directory: uploadsDir(dataDir) }),
      maxSize: maxBytes,
      namingFunction: () => newUploadId(),
      onUploadCreate: async (req, upload) => {
        const owner = this.owners.get(req as unknown as Request);
        if (!owner) throw { status_code: 500, body: "upload without an owner\n" };
        insertUpload(this.db, this.clock, owner, upload.id, { size: upload.size ?? null, filename: upload.metadata?.filename ?? null, complete: false });
        return {};
      },
      onUploadFinish: async (_req, upload) => {
        markUploadComplete(this.db, this.clock, upload.id, upload.offset);
        return {};
      },
    });
    this.tus.on(EVENTS.POST_TERMINATE, (_req, _res, id: string) => deleteUpload(this.db, id));
  }

  /**
   * A tus request (POST creates, HEAD/PATCH/DELETE/OPTIONS on an upload's URL). The caller has
   * already checked that an existing upload belongs to `owner`.
   */
  handleTus(request: Request, owner: UploadOwner): Promise<Response> {
    this.owners.set(request, owner);
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
    return insertUpload(this.db, this.clock, owner, id, { size, filename, complete: true });
  }

  private tooLarge(): ApiError {
    return new ApiError("body_too_large", `The upload exceeds ${this.maxBytes} bytes (CLIPYARD_MAX_MEDIA_BYTES).`);
  }
}

import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Secrets the appliance must be able to read back (webhook signing secrets) are sealed with
 * AES-256-GCM under a master key kept in a file beside, not inside, the database: a copied or
 * backed-up database alone does not leak them. The nodes of a cluster share one key through
 * CLIPYARD_SECRET_KEY (what one node seals, another opens); a single appliance makes its own file.
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** CLIPYARD_SECRET_KEY (base64 of 32 bytes) when set, else the data directory's key file. */
  static forConfig(config: { dataDir: string; secretKey?: string }): SecretBox {
    return config.secretKey ? new SecretBox(Buffer.from(config.secretKey, "base64")) : SecretBox.forDataDir(config.dataDir);
  }

  /**
   * Names the key without revealing it, so nodes can check they hold the same one (an HMAC under the
   * key of a fixed text: learning it tells nothing about the key).
   */
  fingerprint(): string {
    return createHmac("sha256", this.key).update("clipyard secret-box fingerprint v1").digest("hex").slice(0, 32);
  }

  static forDataDir(dataDir: string): SecretBox {
    const dir = join(dataDir, "secrets");
    const path = join(dir, "master.key");
    if (!existsSync(path)) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(path, randomBytes(32), { mode: 0o600, flag: "wx" });
    }
    chmodSync(path, 0o600);
    return new SecretBox(readFileSync(path));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const ct = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), ct.toString("base64url")].join(".");
  }

  open(sealed: string): string {
    const [v, iv, tag, ct] = sealed.split(".");
    if (v !== "v1" || !iv || !tag || ct === undefined) throw new Error("unrecognised sealed secret");
    const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]).toString("utf8");
  }
}

import type { Clock } from "../clock.ts";
import { type Db, tx } from "../db/client.ts";
import type { JobRow } from "../db/schema.ts";
import type { JobErrorCode } from "../errors.ts";
import type { StoredOutput } from "../pipeline/output.ts";
import { shareToken, shareTokenHash } from "./share-tokens.ts";
import { markComplete, markFailed, type Guard } from "./store.ts";

/**
 * Work that must commit together with a job's terminal transition (the webhook outbox, the wallet
 * debit or hold release). Runs inside the transaction; throwing rolls the transition back.
 */
export type TerminalEffect = (job: JobRow) => void;

/** The only way a job becomes terminal: guarded update plus its effects, in one transaction. */
export class JobTransitions {
  private readonly effects: TerminalEffect[] = [];

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly shareSecret: string,
  ) {}

  onTerminal(effect: TerminalEffect): void {
    this.effects.push(effect);
  }

  complete(id: string, output: StoredOutput, guard: Guard): JobRow | undefined {
    return tx(this.db, () => {
      const hash = shareTokenHash(shareToken(this.shareSecret, id));
      const row = markComplete(this.db, id, JSON.stringify(output), hash, this.clock.now(), guard);
      if (row) for (const effect of this.effects) effect(row);
      return row;
    });
  }

  fail(id: string, code: JobErrorCode, message: string, guard: Guard): JobRow | undefined {
    return tx(this.db, () => {
      const row = markFailed(this.db, id, code, message, this.clock.now(), guard);
      if (row) for (const effect of this.effects) effect(row);
      return row;
    });
  }
}

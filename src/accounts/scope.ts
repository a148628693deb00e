import type { KeyEnv } from "./keys.ts";

/**
 * Whose data a read or write touches: one organisation, in one of its two worlds. Test and live are
 * separate worlds inside an organisation (as in Stripe): jobs, webhooks, events and deliveries of one
 * are invisible to the other, so every domain lookup takes a Scope, never a bare organisation id.
 */
export interface Scope {
  orgId: string;
  env: KeyEnv;
}

export const ENVS: readonly KeyEnv[] = ["live", "test"];

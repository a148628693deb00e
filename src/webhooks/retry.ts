/**
 * Spec §6/§8 list seven retry delays (1 s … 24 h) and say a delivery is marked failed "after 7
 * failed attempts". We read the seven attempts as the seven retries: one first send plus up to
 * seven retries, each after the listed delay, so the whole published schedule is honoured. The
 * delivery is marked failed when the 7th retry (the 8th send) fails. See docs/api.md.
 */
export const RETRY_DELAYS_MS = [1_000, 10_000, 60_000, 600_000, 3_600_000, 21_600_000, 86_400_000] as const;
export const MAX_SENDS = 1 + RETRY_DELAYS_MS.length;
/** Consecutive failed deliveries after which a webhook is deactivated. */
export const DEACTIVATE_AFTER = 10;
/** Time allowed for one send (connect to end of response), not scaled. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** When to try again after `sendsSoFar` failed sends, or null when the delivery is exhausted. */
export function nextAttemptDelay(sendsSoFar: number, timeScale: number): number | null {
  const delay = RETRY_DELAYS_MS[sendsSoFar - 1];
  return delay === undefined ? null : Math.round(delay * timeScale);
}

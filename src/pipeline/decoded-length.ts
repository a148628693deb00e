/**
 * How much audio a file may decode to. The length cap (CLIPYARD_MAX_MEDIA_SECONDS) is checked on the
 * duration the file's header claims, and a header can lie: a 4 MB FLAC that claims a minute can hold
 * six hours. So decoding is also stopped at a small multiple of the claim. Honest headers are close
 * to the truth but not exact (a VBR MP3 without a Xing header is estimated from its first frame's
 * bit rate), hence twice the claim plus a minute.
 */
export const CLAIMED_LENGTH_FACTOR = 2;
export const CLAIMED_LENGTH_SLACK_SECONDS = 60;

/** Seconds of decoded audio allowed for a file that claims `claimedSeconds` (0: it claims nothing). */
export function decodedLengthLimit(claimedSeconds: number, capSeconds: number): number {
  if (!(claimedSeconds > 0)) return capSeconds;
  return Math.min(capSeconds, claimedSeconds * CLAIMED_LENGTH_FACTOR + CLAIMED_LENGTH_SLACK_SECONDS);
}

/** The sentence a job fails with when the limit is hit: which bound, and why. */
export function decodedTooLongMessage(limitSeconds: number, capSeconds: number): string {
  return limitSeconds >= capSeconds
    ? `the media decodes to more than the ${capSeconds}-s limit (CLIPYARD_MAX_MEDIA_SECONDS); decoding stopped there`
    : `the media decodes to more than ${Math.round(limitSeconds)} s, far longer than the duration its header claims; decoding stopped there (a file is allowed ${CLAIMED_LENGTH_FACTOR}× its claimed duration plus ${CLAIMED_LENGTH_SLACK_SECONDS} s)`;
}

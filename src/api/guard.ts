import type { AppContext } from "./context.ts";
import { authenticate, type Principal } from "./auth.ts";
import type { RevocationReader } from "../accounts/keys.ts";
import { ApiError } from "../errors.ts";
import { RATE_LIMITS, rateHeaders, type RateClass } from "./rate-limit.ts";
import type { HeaderBag } from "./routing.ts";

/**
 * Authenticates the request and charges it to its key's rate budget. Rate headers go on the
 * response whatever happens next (2xx or 4xx); an exhausted budget throws too_many_requests.
 * `revokedAtNow`: see authenticate.
 */
export function guard(ctx: AppContext, request: Request, headers: HeaderBag, cls?: RateClass, revokedAtNow?: RevocationReader): Principal {
  const principal = authenticate(ctx.db, request.headers.get("authorization"), revokedAtNow);
  const rateClass = cls ?? (request.method === "GET" || request.method === "HEAD" ? "read" : "write");
  const decision = ctx.limiter.hit(`${principal.key.id}:${rateClass}`, RATE_LIMITS[rateClass]);
  Object.assign(headers, rateHeaders(decision));
  if (!decision.allowed) {
    throw new ApiError(
      "too_many_requests",
      `Rate limit of ${decision.limit} ${rateClass === "write" ? "writes" : "reads"} per 60 s exceeded for this key; retry in ${decision.retryAfterSeconds} s.`,
    );
  }
  return principal;
}

import { randomBase62 } from "../ids.ts";

export const newRequestId = (): string => `req_${randomBase62(128)}`;

/** Request id of each in-flight request, set before routing so even 404s and framework errors carry it. */
export const requestIds = new WeakMap<Request, string>();

export function requestIdOf(request: Request): string {
  let id = requestIds.get(request);
  if (!id) requestIds.set(request, (id = newRequestId()));
  return id;
}

import type { ApiError } from "../errors.ts";

/** The spec's error envelope: the one place an ApiError becomes an HTTP body (the API's and the dashboard's uploads). */
export function errorBody(err: ApiError, requestId: string) {
  return {
    error: { type: err.type, code: err.code, message: err.message, param: err.param, request_id: requestId },
  };
}

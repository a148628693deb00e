import { eq } from "drizzle-orm";
import type { Elysia } from "elysia";
import { ApiError } from "../../errors.ts";
import type { AppContext } from "../../api/context.ts";
import { readBodyLimited } from "../../api/body.ts";
import { orgs } from "../../db/schema.ts";
import { htmlSecurityHeaders, page } from "../html.ts";
import type { Frame } from "./pages.ts";
import { csrfValid, sessionFromRequest, type DashboardSession } from "./session.ts";

const MAX_FORM_BYTES = 16 * 1024;

const SECURITY_HEADERS = {
  ...htmlSecurityHeaders("form-action 'self' https://checkout.stripe.com"),
  "cache-control": "no-store",
  // same-origin, not no-referrer: with no-referrer Chromium sends "Origin: null" on our own form posts.
  "referrer-policy": "same-origin",
};

export function html(body: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { ...SECURITY_HEADERS, ...headers } });
}

export function redirect(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location, "cache-control": "no-store", ...headers } });
}

export async function readForm(request: Request): Promise<URLSearchParams> {
  const buf = await readBodyLimited(request, MAX_FORM_BYTES, () => new ApiError("body_too_large", "Form too large."));
  return new URLSearchParams(new TextDecoder().decode(buf));
}

export const signedOut = () =>
  html(page("Sign in · clipyard", `<h1>Sign in required</h1><p>Run <code>clipyard login --org NAME</code> on the appliance and open the link it prints.</p>`), 401);

export type Render = (s: DashboardSession, f: Frame, request: Request, params: Record<string, string>) => Response | string | Promise<Response | string>;
export type Handle = (s: DashboardSession, form: URLSearchParams, params: Record<string, string>, request: Request) => Promise<Response> | Response;

/**
 * How any dashboard page is registered, so every area gets the same rules: `view` (GET) needs a
 * live session; `action` (POST) also needs a same-origin request and the session's CSRF token.
 * Add a page with `view(path, (s, f) => frame(f, title, body))` and a nav entry in
 * DASHBOARD_SECTIONS (src/web/dashboard/pages.ts).
 */
export function dashboardRouter(app: Elysia, ctx: AppContext) {
  // Defence in depth beside SameSite and the CSRF token: a browser's Origin, when sent, must be ours.
  const publicOrigin = new URL(ctx.config.publicUrl).origin;
  const sameOrigin = (request: Request) => {
    const origin = request.headers.get("origin");
    return origin === null || origin === publicOrigin || origin === new URL(request.url).origin;
  };
  const orgName = (orgId: string) => ctx.db.select().from(orgs).where(eq(orgs.id, orgId)).get()?.name ?? orgId;
  const frameFor = (s: DashboardSession, current: string): Frame => ({ orgName: orgName(s.orgId), csrf: s.csrf, current });

  const view = (path: string, render: Render) =>
    app.get(path, async ({ request, params }) => {
      const s = sessionFromRequest(ctx.db, ctx.clock, request);
      if (!s) return signedOut();
      const out = await render(s, frameFor(s, path), request, params as Record<string, string>);
      return typeof out === "string" ? html(out) : out;
    });

  const action = (path: string, handle: Handle) =>
    app.post(
      path,
      async ({ request, params }) => {
        const s = sessionFromRequest(ctx.db, ctx.clock, request);
        if (!s) return signedOut();
        if (!sameOrigin(request)) return html(page("Refused", "<h1>Refused</h1><p>Cross-site form submissions are not accepted.</p>"), 403);
        const form = await readForm(request);
        if (!csrfValid(s, form.get("csrf"))) return html(page("Refused", "<h1>Refused</h1><p>The form's security token did not match your session. Reload the page and try again.</p>"), 403);
        return handle(s, form, params as Record<string, string>, request);
      },
      { parse: "none" },
    );

  /**
   * A POST whose body is not a form (a file the page streams up): the same session and origin
   * checks as `action`, the CSRF token in the X-CSRF-Token header, the body left unread for the handler.
   */
  const stream = (path: string, handle: (s: DashboardSession, request: Request) => Promise<Response> | Response) =>
    app.post(
      path,
      ({ request }) => {
        const s = sessionFromRequest(ctx.db, ctx.clock, request);
        if (!s) return signedOut();
        if (!sameOrigin(request) || !csrfValid(s, request.headers.get("x-csrf-token"))) {
          return html(page("Refused", "<h1>Refused</h1><p>Cross-site or unsigned requests are not accepted.</p>"), 403);
        }
        return handle(s, request);
      },
      { parse: "none" },
    );

  return { view, action, stream, frameFor };
}

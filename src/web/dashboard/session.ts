import { and, eq, gt, isNull, lt } from "drizzle-orm";
import type { Clock } from "../../clock.ts";
import { type Db, tx } from "../../db/client.ts";
import { dashboardLoginTokens, dashboardSessions } from "../../db/schema.ts";
import { randomBase62, safeEqual, sha256Hex } from "../../ids.ts";

/**
 * Dashboard sign-in for a LAN appliance (docs/billing.md, "Dashboard sign-in"). The operator runs
 * `clipyard login --org NAME` on the appliance and opens the one-time link it prints; redeeming it
 * starts a cookie session. Tokens and session ids are random (≥160 bits) and stored only as
 * SHA-256 hashes, so a copy of the database cannot be used to sign in.
 */

export const LOGIN_TOKEN_TTL_MS = 15 * 60 * 1000;
export const SESSION_TTL_MS = 12 * 3600 * 1000;
export const SESSION_COOKIE = "clipyard_dashboard";
const TOKEN_BITS = 160;

export interface DashboardSession {
  orgId: string;
  idHash: string;
  /** Per-session anti-CSRF token, embedded in every form and checked on every POST. */
  csrf: string;
  expiresAt: number;
}

export function issueLoginToken(db: Db, clock: Clock, orgId: string): { token: string; expiresAt: number } {
  const token = randomBase62(TOKEN_BITS);
  const now = clock.now();
  const expiresAt = now + LOGIN_TOKEN_TTL_MS;
  db.insert(dashboardLoginTokens).values({ tokenHash: sha256Hex(token), orgId, createdAt: now, expiresAt, usedAt: null }).run();
  return { token, expiresAt };
}

export const loginUrl = (publicUrl: string, token: string): string => `${publicUrl}/dashboard/login?token=${encodeURIComponent(token)}`;

/** Spends a login token (once, before it expires) and starts a session; returns the raw session id. */
export function redeemLoginToken(db: Db, clock: Clock, token: string): { sessionId: string; session: DashboardSession } | undefined {
  if (!/^[0-9A-Za-z]{20,64}$/.test(token)) return undefined;
  const now = clock.now();
  return tx(db, () => {
    const spent = db
      .update(dashboardLoginTokens)
      .set({ usedAt: now })
      .where(and(eq(dashboardLoginTokens.tokenHash, sha256Hex(token)), isNull(dashboardLoginTokens.usedAt), gt(dashboardLoginTokens.expiresAt, now)))
      .returning()
      .get();
    if (!spent) return undefined;
    // Housekeeping while we hold the write lock: forget expired sessions and tokens.
    db.delete(dashboardSessions).where(lt(dashboardSessions.expiresAt, now)).run();
    db.delete(dashboardLoginTokens).where(lt(dashboardLoginTokens.expiresAt, now - LOGIN_TOKEN_TTL_MS)).run();
    const sessionId = randomBase62(256);
    const session: DashboardSession = { orgId: spent.orgId, idHash: sha256Hex(sessionId), csrf: randomBase62(160), expiresAt: now + SESSION_TTL_MS };
    db.insert(dashboardSessions).values({ idHash: session.idHash, orgId: session.orgId, csrfToken: session.csrf, createdAt: now, expiresAt: session.expiresAt }).run();
    return { sessionId, session };
  });
}

export function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

export function sessionFromRequest(db: Db, clock: Clock, request: Request): DashboardSession | undefined {
  const id = cookieValue(request.headers.get("cookie"), SESSION_COOKIE);
  if (!id || !/^[0-9A-Za-z]{20,64}$/.test(id)) return undefined;
  const row = db.select().from(dashboardSessions).where(eq(dashboardSessions.idHash, sha256Hex(id))).get();
  if (!row || row.expiresAt <= clock.now()) return undefined;
  return { orgId: row.orgId, idHash: row.idHash, csrf: row.csrfToken, expiresAt: row.expiresAt };
}

export function endSession(db: Db, session: DashboardSession): void {
  db.delete(dashboardSessions).where(eq(dashboardSessions.idHash, session.idHash)).run();
}

export const csrfValid = (session: DashboardSession, presented: string | null | undefined): boolean =>
  typeof presented === "string" && safeEqual(session.csrf, presented);

/** HttpOnly (no script reads it), SameSite=Strict (no cross-site request carries it), scoped to /dashboard. */
export function sessionCookie(sessionId: string, maxAgeMs: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${sessionId}; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(maxAgeMs / 1000)}${secure ? "; Secure" : ""}`;
}

export const clearedSessionCookie = (secure: boolean): string => sessionCookie("", 0, secure);

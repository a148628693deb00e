import type { Elysia } from "elysia";
import type { AppContext } from "./context.ts";

/**
 * The app a resource file adds its routes to. Routes are added in place (Elysia mutates the
 * instance), so the resource files share one plain type instead of each growing Elysia's chained one.
 */
export type App = Elysia;

/** What every resource file exports: its routes, added to the app. src/api/app.ts lists them. */
export type Register = (app: App, ctx: AppContext) => void;

export type HeaderBag = Record<string, string | number>;

/** The reply a handler shapes: its status (when not the route's default) and headers. */
export interface Reply {
  status?: number | string;
  headers: HeaderBag;
}

/**
 * Elysia's `set` as the plain status-and-headers record the handlers write into (rate headers,
 * Idempotent-Replayed, tus headers). Its own type narrows headers to a union the handlers need not know.
 */
export const reply = (set: unknown): Reply => set as Reply;

import { ENVS } from "../../accounts/scope.ts";
import type { AppContext } from "../../api/context.ts";
import { listFeeds } from "../../feeds/store.ts";
import { esc } from "../html.ts";
import { date, frame, worldName } from "./pages.ts";
import { dashboardRouter } from "./router.ts";

/**
 * The dashboard's Feeds page: every podcast feed of the organisation in both worlds, each labelled
 * with the one it belongs to, and what its poller last saw. Read-only: feeds are managed with
 * /v1/feeds or `clipyard feeds`.
 */
export function registerFeedDashboard(app: Parameters<typeof dashboardRouter>[0], ctx: AppContext): void {
  const { view } = dashboardRouter(app, ctx);
  view("/dashboard/feeds", (s, f) => {
    const feeds = ENVS.flatMap((env) => listFeeds(ctx.db, { orgId: s.orgId, env })).sort((a, b) => b.createdAt - a.createdAt);
    const rows = feeds
      .map(
        (feed) => `<tr data-feed="${esc(feed.id)}"><td>${esc(feed.url)}<br><span class="muted"><code>${esc(feed.id)}</code>${feed.since === null ? "" : ` · episodes after ${date(feed.since)}`}</span></td>
<td data-env="${feed.env}">${worldName(feed.env)}</td><td data-status>${esc(feed.lastStatus)}${feed.lastError ? `<br><span class="muted">${esc(feed.lastError)}</span>` : ""}</td>
<td class="num" data-jobs>${feed.jobsCreated}</td><td class="num">${feed.itemsSeen}</td><td>${date(feed.lastPolledAt)}</td><td>${date(feed.nextPollAt)}</td></tr>`,
      )
      .join("");
    const intro = `<p class="muted">Each new episode of a feed becomes one job in the feed's world. Register feeds with <code>POST /v1/feeds</code> or <code>clipyard feeds add URL --org NAME</code>.</p>`;
    const table = `<table id="feeds"><thead><tr><th>Feed</th><th>World</th><th>Last poll</th><th class="num">Jobs</th><th class="num">Episodes seen</th><th>Polled</th><th>Next poll</th></tr></thead>
<tbody>${rows || `<tr><td colspan="7" class="muted">No feeds registered.</td></tr>`}</tbody></table>`;
    return frame(f, "Feeds", `${intro}<section class="card">${table}</section>`);
  });
}

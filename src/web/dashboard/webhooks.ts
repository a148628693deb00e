import { ApiError } from "../../errors.ts";
import { ENVS } from "../../accounts/scope.ts";
import type { AppContext } from "../../api/context.ts";
import { isoUtc } from "../../clock.ts";
import { eventOf, replayDelivery } from "../../webhooks/service.ts";
import { attemptsOf, listDeliveries, listWebhooks } from "../../webhooks/store.ts";
import { esc } from "../html.ts";
import { csrfField, frame, worldName, type Flash } from "./pages.ts";
import { dashboardRouter, redirect } from "./router.ts";

const when = (ms: number) => isoUtc(ms).replace("T", " ").slice(0, 19) + " UTC";

/**
 * The dashboard's Webhooks page: each endpoint, its recent deliveries with every attempt, replay. The
 * dashboard is the operator's view of the whole organisation, so it shows both worlds, each endpoint
 * labelled with the one it belongs to; a replay stays inside that world.
 */
export function registerWebhookDashboard(app: Parameters<typeof dashboardRouter>[0], ctx: AppContext): void {
  const { view, action } = dashboardRouter(app, ctx);
  const flashOf = (request: Request): Flash => {
    const code = new URL(request.url).searchParams.get("flash");
    if (code === "replayed") return { notice: "Replay queued: the same event and request_id are being sent again." };
    if (code === "replay_refused") return { error: "That delivery cannot be replayed (unknown, or its webhook was deleted or deactivated)." };
    return {};
  };

  view("/dashboard/webhooks", (s, f, request) => {
    const hooks = ENVS.flatMap((env) => listWebhooks(ctx.db, { orgId: s.orgId, env })).sort((a, b) => b.createdAt - a.createdAt);
    const sections = hooks.map((w) => {
      const { rows } = listDeliveries(ctx.db, { orgId: s.orgId, env: w.env }, w.id, 20);
      const deliveries = rows
        .map((d) => {
          const ev = eventOf(ctx.webhooks, d.eventId);
          const attempts = attemptsOf(ctx.db, d.id)
            .map((a) => `<li>#${a.number} ${when(a.at)} · ${a.httpStatus ? `HTTP ${a.httpStatus}` : esc(a.error ?? "error")} · ${a.durationMs} ms</li>`)
            .join("");
          const next = d.status === "pending" && d.nextAttemptAt ? `<br><span class="muted">next attempt ${when(d.nextAttemptAt)}</span>` : "";
          return `<tr data-delivery="${esc(d.id)}"><td><code>${esc(d.id)}</code><br><span class="muted">${esc(ev.type)} · ${esc(d.kind)}</span></td>
<td>${esc(d.status)}${next}</td><td><code>${esc(ev.requestId)}</code></td><td><ul>${attempts || "<li class=muted>not sent yet</li>"}</ul></td>
<td><form method="post" action="/dashboard/deliveries/${esc(d.id)}/replay">${csrfField(f.csrf)}<input type="hidden" name="env" value="${w.env}"><button class="plain" type="submit">Replay</button></form></td></tr>`;
        })
        .join("");
      return `<section class="card" data-webhook="${esc(w.id)}"><h2>${esc(w.url)}</h2>
<p class="muted"><span data-env="${w.env}">${worldName(w.env)}</span> · ${esc(w.id)} · ${esc(JSON.parse(w.events).join(", "))} · <strong>${esc(w.status)}</strong> · ${w.consecutiveFailures} consecutive failed deliveries</p>
<table><thead><tr><th>Delivery</th><th>Status</th><th>request_id</th><th>Attempts</th><th></th></tr></thead><tbody>${deliveries || `<tr><td colspan="5" class="muted">No deliveries yet.</td></tr>`}</tbody></table></section>`;
    });
    const intro = `<p class="muted">Endpoints are registered with <code>POST /v1/webhooks</code>. A failed delivery is retried after 1 s, 10 s, 1 min, 10 min, 1 h, 6 h and 24 h; 10 failed deliveries in a row deactivate the endpoint.</p>`;
    return frame(f, "Webhooks", intro + (sections.join("") || `<p>No webhooks registered.</p>`), flashOf(request));
  });

  action("/dashboard/deliveries/:id/replay", (s, form, params) => {
    try {
      replayDelivery(ctx.webhooks, { orgId: s.orgId, env: form.get("env") === "live" ? "live" : "test" }, params.id!);
      return redirect("/dashboard/webhooks?flash=replayed");
    } catch (err) {
      if (err instanceof ApiError) return redirect("/dashboard/webhooks?flash=replay_refused");
      throw err;
    }
  });
}

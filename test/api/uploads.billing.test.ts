import { afterAll, beforeAll, expect, test } from "bun:test";
import { createKey } from "../../src/accounts/keys.ts";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { grantCredits } from "../../src/billing/topups.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { rawUpload } from "../helpers/uploads.ts";
import { EMPTY_OUTPUT } from "../billing/helpers.ts";

/** A live job from an upload is priced like a video_url job: same hold, same refusal without balance. */
let app: TestAppliance;
beforeAll(async () => {
  app = await startAppliance({ scheduler: false });
});
afterAll(() => app.stop());

test("past the free tier an upload job holds 3.00 USD, and is refused without it", async () => {
  const { ctx } = app;
  const orgId = ensureOrg(ctx.db, "up-billing", ctx.clock).id;
  const key = createKey(ctx.db, orgId, "live", ctx.clock).key;
  const submit = async () => {
    const upload = (await rawUpload(app, key, new Uint8Array(1000))).json;
    return app.api("POST", "/v1/jobs", { key, body: { source: { type: "upload", upload_id: upload.id } } });
  };
  for (let i = 0; i < 3; i++) {
    const res = await submit();
    expect(res.status).toBe(202);
    ctx.transitions.complete(res.json.id, EMPTY_OUTPUT, { from: ["queued"] });
  }
  const refused = await submit();
  expect(refused.status).toBe(402);
  expect(refused.json.error.code).toBe("insufficient_balance");
  grantCredits(ctx.db, orgId, 500, ctx.clock.now());
  expect((await submit()).status).toBe(202);
  expect((await app.api("GET", "/v1/wallet", { key })).json).toMatchObject({ balance_cents: 500, held_cents: 300, available_cents: 200 });
  // 2.00 USD left: a second upload job does not fit, exactly as a video_url job would not.
  expect((await submit()).status).toBe(402);
});

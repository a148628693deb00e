import { resolve } from "node:path";

/** The shared real recordings beside the checkout (../shared/media), or CLIPYARD_SHARED_MEDIA. */
export const SHARED_MEDIA = resolve(process.env.CLIPYARD_SHARED_MEDIA ?? resolve(import.meta.dir, "../../../shared/media"));

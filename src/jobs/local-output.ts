import { parseFileRef, type StoredOutput } from "../pipeline/output.ts";

/**
 * A job's output shaped like the API's, with every file named by its file name in the folder it
 * was written to instead of a URL: what `clipyard process` and the watch folder put in job.json
 * beside the clips.
 */
export function localJobOutput(output: StoredOutput) {
  const local = (ref: string) => parseFileRef(ref)!.name;
  return {
    clips: output.clips.map(({ files, captions, thumbnails, ...c }) => ({
      ...c,
      rendered_urls: Object.fromEntries(Object.entries(files).map(([k, v]) => [k, local(v)])),
      ...(thumbnails ? { thumbnail_urls: Object.fromEntries(Object.entries(thumbnails).map(([k, v]) => [k, local(v)])) } : {}),
      ...(captions ? { captions_srt_url: local(captions.srt), captions_vtt_url: local(captions.vtt) } : {}),
    })),
    trailer: output.trailer ? { url: local(output.trailer.file), duration_seconds: output.trailer.duration_seconds } : null,
    guest_share_url: null,
    show_notes: output.show_notes,
    transcript: output.transcript,
    ...(output.warnings ? { warnings: output.warnings } : {}),
    engine: output.engine,
    // The API's export fields, as file names in the output folder.
    ...Object.fromEntries(Object.entries(output.exports ?? {}).map(([k, ref]) => [`${k}_url`, local(ref)])),
  };
}

/** Probe result of a local media file. */
export interface MediaInfo {
  path: string;
  durationSeconds: number;
  hasVideo: boolean;
  hasAudio: boolean;
  width?: number;
  height?: number;
  fps?: number;
}

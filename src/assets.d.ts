// Files imported `with { type: "file" }` resolve to a path (embedded in the compiled binary).
declare module "*.mp4" {
  const path: string;
  export default path;
}
declare module "*.jpg" {
  const path: string;
  export default path;
}
declare module "*.srt" {
  const path: string;
  export default path;
}
declare module "*.vtt" {
  const path: string;
  export default path;
}
declare module "*.otio" {
  const path: string;
  export default path;
}
declare module "*.fcpxml" {
  const path: string;
  export default path;
}
declare module "*.py" {
  const path: string;
  export default path;
}
declare module "*.wasm" {
  const path: string;
  export default path;
}
declare module "@ffmpeg/core/wasm" {
  const path: string;
  export default path;
}
declare module "@ffmpeg/core" {
  const createCore: (opts: unknown) => Promise<unknown>;
  export default createCore;
}
declare module "@ffmpeg/core/package.json" {
  const pkg: { version: string };
  export default pkg;
}
declare module "*.so.1" {
  const path: string;
  export default path;
}

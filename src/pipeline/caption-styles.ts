/** Caption presets a job may ask for with options.caption_style (the renderer defines each look). */
export const CAPTION_STYLES = ["bold", "minimal", "karaoke", "boxed"] as const;
export type CaptionStyle = (typeof CAPTION_STYLES)[number];
export const DEFAULT_CAPTION_STYLE: CaptionStyle = "bold";

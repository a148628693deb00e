import { expect, test } from "bun:test";
import { chooseEncoder, chooseX264Preset, detectEngine, encoderLabel, resetEngineDetection, videoEncoderArgs } from "../../../src/media/ffmpeg-engine.ts";

test("the first hardware encoder that passed its probe wins, else libx264", () => {
  expect(chooseEncoder(undefined, [])).toBe("libx264");
  expect(chooseEncoder("auto", ["h264_nvenc", "h264_vaapi"])).toBe("h264_nvenc");
});

test("CLIPYARD_VIDEO_ENCODER forces libx264 beside a GPU, or a hardware encoder only when it passed", () => {
  expect(chooseEncoder("libx264", ["h264_nvenc"])).toBe("libx264");
  expect(chooseEncoder("h264_vaapi", ["h264_nvenc", "h264_vaapi"])).toBe("h264_vaapi");
  expect(() => chooseEncoder("h264_nvenc", [])).toThrow("CLIPYARD_VIDEO_ENCODER is h264_nvenc, but it failed its probe encode here (working hardware encoders: none)");
  expect(() => chooseEncoder("x265", [])).toThrow("CLIPYARD_VIDEO_ENCODER must be auto, libx264 or one of");
});

test("CLIPYARD_X264_PRESET: veryfast unless named; a name libx264 does not have is refused; the preset reaches x264's arguments", () => {
  expect(chooseX264Preset(undefined)).toBe("veryfast");
  expect(chooseX264Preset("")).toBe("veryfast");
  expect(chooseX264Preset("ultrafast")).toBe("ultrafast");
  expect(chooseX264Preset("medium")).toBe("medium");
  expect(() => chooseX264Preset("placebo-ish")).toThrow("CLIPYARD_X264_PRESET must be one of ultrafast, superfast, veryfast, faster, fast, medium, slow (got 'placebo-ish')");
  const { args } = videoEncoderArgs("libx264", { crf: 21, preset: chooseX264Preset("ultrafast") });
  expect(args.slice(args.indexOf("-preset"), args.indexOf("-preset") + 2)).toEqual(["-preset", "ultrafast"]);
});

test("the encoder's label carries libx264's preset and only libx264's", () => {
  expect(encoderLabel({ encoder: "libx264", x264Preset: "veryfast" })).toBe("libx264 veryfast");
  expect(encoderLabel({ encoder: "h264_nvenc", x264Preset: "ultrafast" })).toBe("h264_nvenc");
});

test("engine detection refuses a CLIPYARD_X264_PRESET libx264 does not have", async () => {
  const before = process.env.CLIPYARD_X264_PRESET;
  process.env.CLIPYARD_X264_PRESET = "lightning";
  resetEngineDetection();
  try {
    await expect(detectEngine()).rejects.toThrow("CLIPYARD_X264_PRESET must be one of ultrafast, superfast, veryfast, faster, fast, medium, slow (got 'lightning')");
  } finally {
    if (before === undefined) delete process.env.CLIPYARD_X264_PRESET;
    else process.env.CLIPYARD_X264_PRESET = before;
    resetEngineDetection();
  }
});

test("NVENC is asked for quality at a size: constant-quality VBR with lookahead and spatial AQ, on the x264 CRF scale", () => {
  const { args } = videoEncoderArgs("h264_nvenc", { crf: 21, preset: "veryfast" });
  const opt = (name: string) => args[args.indexOf(name) + 1];
  expect([opt("-preset"), opt("-tune"), opt("-rc"), opt("-cq"), opt("-b:v"), opt("-rc-lookahead"), opt("-spatial-aq"), opt("-profile:v")]).toEqual(["p5", "hq", "vbr", "23", "0", "20", "1", "high"]);
});

/**
 * One static gain per file that brings speech to a common level before voice activity detection and
 * recognition. Silero VAD and Whisper both depend on the input level: far-field meetings at -39 to
 * -51 dB mean came back with no words at all. A single gain (rather than a compressor such as dynaudnorm) keeps
 * pauses as quiet relative to speech as they were, so the VAD still hears them as pauses.
 */

/** Where the loud end of speech is placed: the 99th percentile of 30 ms frame RMS. */
export const SPEECH_LEVEL_DBFS = -14;
/** The quietest file that is still amplified at all; below this it is silence (or a bare noise floor). */
const SILENCE_DBFS = -75;
/** Most boost: a -25 dB copy of an ordinary recording still reaches the target. */
const MAX_GAIN_DB = 40;
/**
 * Never a cut: Whisper is at home with loud masters, and bringing jfk.wav down 5.5 dB cost the tiny
 * model two of its 22 words.
 */
const MIN_GAIN_DB = 0;
/** The 99.9th percentile of sample magnitude stays below this; the rarer peaks above it are clipped. */
const PEAK_DBFS = -1;

const fromDb = (db: number) => 10 ** (db / 20);

/**
 * Level (99th percentile of 30 ms frame RMS) and the 99.9th percentile magnitude, both in 0..1 of full
 * scale, measured block by block so a long episode's samples never have to sit in memory at once.
 */
export class SpeechLevelMeter {
  private readonly frame: number;
  private readonly rms: number[] = [];
  // Magnitudes in 16-bit steps: the percentile without sorting every sample of a long episode.
  private readonly histogram = new Uint32Array(32769);
  private count = 0;
  private sum = 0;
  private inFrame = 0;

  constructor(sampleRate: number) {
    this.frame = Math.max(1, Math.round(sampleRate * 0.03));
  }

  add(samples: Float32Array): void {
    for (let i = 0; i < samples.length; i++) {
      const v = samples[i]!;
      this.sum += v * v;
      this.histogram[Math.min(32768, Math.round(Math.abs(v) * 32768))]!++;
      this.count++;
      if (++this.inFrame === this.frame) this.closeFrame();
    }
  }

  private closeFrame(): void {
    this.rms.push(Math.sqrt(this.sum / this.inFrame));
    this.sum = 0;
    this.inFrame = 0;
  }

  result(): { level: number; peak: number } {
    if (this.inFrame > 0) this.closeFrame();
    if (!this.rms.length) return { level: 0, peak: 0 };
    const rms = [...this.rms].sort((a, b) => a - b);
    const level = rms[Math.min(rms.length - 1, Math.floor(0.99 * rms.length))]!;
    let below = 0;
    for (let v = 0; v < this.histogram.length; v++) {
      below += this.histogram[v]!;
      if (below >= 0.999 * this.count) return { level, peak: v / 32768 };
    }
    return { level, peak: 1 };
  }
}

export function measureSpeechLevel(samples: Float32Array, sampleRate: number): { level: number; peak: number } {
  const meter = new SpeechLevelMeter(sampleRate);
  meter.add(samples);
  return meter.result();
}

/** The gain (linear) for a file at this level: up to the target, within the limits, peaks kept under PEAK_DBFS. */
export function speechGain(level: number, peak: number): number {
  if (level <= fromDb(SILENCE_DBFS)) return 1;
  const gain = Math.min(fromDb(MAX_GAIN_DB), Math.max(fromDb(MIN_GAIN_DB), fromDb(SPEECH_LEVEL_DBFS) / level));
  if (gain <= 1 || peak <= 0) return gain;
  // The peak limit only ever lessens a boost; it never turns one into a cut.
  return Math.max(1, Math.min(gain, fromDb(PEAK_DBFS) / peak));
}

/** The samples times `gain` as 16-bit PCM, clipped at full scale. */
export function toPcm16(samples: Float32Array, gain: number): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i]! * gain * 32768)));
  return out;
}

/**
 * The languages Whisper recognises, by the codes its tokenizer uses (ISO 639-1, plus "haw" and "yue",
 * which have none, and Whisper's own "jw" for Javanese). A job's `language` option is one of these or
 * "auto" (detect from the first 30 s of speech).
 */
export const WHISPER_LANGUAGES = [
  "en", "zh", "de", "es", "ru", "ko", "fr", "ja", "pt", "tr", "pl", "ca", "nl", "ar", "sv", "it", "id", "hi", "fi", "vi",
  "he", "uk", "el", "ms", "cs", "ro", "da", "hu", "ta", "no", "th", "ur", "hr", "bg", "lt", "la", "mi", "ml", "cy", "sk",
  "te", "fa", "lv", "bn", "sr", "az", "sl", "kn", "et", "mk", "br", "eu", "is", "hy", "ne", "mn", "bs", "kk", "sq", "sw",
  "gl", "mr", "pa", "si", "km", "sn", "yo", "so", "af", "oc", "ka", "be", "tg", "sd", "gu", "am", "yi", "lo", "uz", "fo",
  "ht", "ps", "tk", "nn", "mt", "sa", "lb", "my", "bo", "tl", "mg", "as", "tt", "haw", "ln", "ha", "ba", "jw", "su", "yue",
] as const;

export type LanguageOption = "auto" | (typeof WHISPER_LANGUAGES)[number];

export const LANGUAGE_OPTIONS: readonly LanguageOption[] = ["auto", ...WHISPER_LANGUAGES];

export function isLanguageOption(v: string): v is LanguageOption {
  return (LANGUAGE_OPTIONS as readonly string[]).includes(v);
}

/** The BCP 47 tag Intl (segmenters, number and list formats) knows the language by. */
export function localeOf(language: string | undefined): string {
  if (!language || language === "und" || language === "auto") return "en";
  if (language === "jw") return "jv";
  try {
    return Intl.getCanonicalLocales(language)[0] ?? "en";
  } catch {
    return "en";
  }
}

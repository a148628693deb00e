/**
 * Test preload (bunfig.toml): the tests whose recogniser does not matter to what they check run the
 * English tiny model, whose words their expectations were written against and which keeps `npm test`
 * inside its time on the 2-core CI machine. Tests of the default recogniser, and the non-English
 * end-to-end test, name their model or clear this themselves. An explicit CLIPYARD_ASR_MODEL wins.
 */
process.env.CLIPYARD_ASR_MODEL ??= "whisper-tiny.en";

/**
 * Child process for children-die.test.ts: starts a quiet, slow ffmpeg through the appliance's own
 * runner and waits. ffmpeg writes nothing to its pipes while it runs, so a broken pipe cannot be
 * what ends it when this process is killed.
 */
import { ffmpeg } from "../../src/media/ffmpeg.ts";

const run = ffmpeg(["-v", "quiet", "-re", "-f", "lavfi", "-i", "anullsrc=d=120", "-f", "null", "-"]);
console.log("started");
await run;

/** A one-line progress bar on a terminal; plain log lines (one per stage) otherwise. */
export function progressReporter(stream: NodeJS.WriteStream = process.stderr) {
  let lastStage = "";
  let lastDraw = 0;
  return {
    update(stage: string, percent: number) {
      if (stream.isTTY) {
        const now = Date.now();
        if (stage === lastStage && now - lastDraw < 100 && percent < 100) return;
        lastDraw = now;
        const width = 30;
        const filled = Math.round((percent / 100) * width);
        stream.write(`\r\x1b[2K[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${String(percent).padStart(3)}% ${stage}`);
      } else if (stage !== lastStage) {
        stream.write(`${String(percent).padStart(3)}% ${stage}\n`);
      }
      lastStage = stage;
    },
    done(message: string) {
      if (stream.isTTY) stream.write("\r\x1b[2K");
      stream.write(message + "\n");
    },
  };
}

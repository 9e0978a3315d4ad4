/** The bench's progress log: one line on stderr each, stamped with the seconds since the start. */
const t0 = Date.now();

export const secondsSinceStart = (): number => (Date.now() - t0) / 1000;

export const say = (line: string): void =>
  void process.stderr.write(`[bench ${secondsSinceStart().toFixed(0).padStart(4)} s] ${line}\n`);

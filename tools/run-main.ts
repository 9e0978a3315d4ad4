/**
 * Runs a command-line tool's `main` and turns its outcome into the exit code: the number it
 * returns (0 when it returns nothing), or 1 with `<name>: <stack>` on stderr when it throws.
 */
export function runMain(name: string, main: () => Promise<number | void>): void {
  main().then(
    (code) => (process.exitCode = code ?? 0),
    (error: unknown) => {
      process.stderr.write(
        `${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 1;
    },
  );
}

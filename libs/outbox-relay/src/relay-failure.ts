/** A failed step of the relay, tagged with the side that failed: it decides how to recover. */
export class RelayFailure extends Error {
  constructor(
    readonly side: 'database' | 'broker',
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

export async function attempt<T>(side: RelayFailure['side'], work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof RelayFailure ? error : new RelayFailure(side, error);
  }
}

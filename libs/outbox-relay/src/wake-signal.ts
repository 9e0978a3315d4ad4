/**
 * A coalescing wake-up: any number of `notify()` calls before the next `wait()` count as one.
 * A flag, not a queue, so a burst of NOTIFYs costs one pass over the outbox.
 */
export class WakeSignal {
  private pending = false;
  private waiter: (() => void) | undefined;

  notify(): void {
    this.pending = true;
    this.waiter?.();
  }

  /** Clears the flag: a pass that starts now sees everything notified so far. */
  clear(): void {
    this.pending = false;
  }

  /** Resolves `true` once notified (at once when already pending), `false` after `timeoutMs`. */
  wait(timeoutMs: number): Promise<boolean> {
    if (this.pending) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        resolve(false);
      }, timeoutMs);
      this.waiter = () => {
        clearTimeout(timer);
        this.waiter = undefined;
        resolve(true);
      };
    });
  }
}

/**
 * A fixed-capacity buffer of the most recent items: pushing beyond `capacity` overwrites the
 * oldest, so the console's history never grows past its cap however long it runs.
 */
export class RingBuffer<T> {
  private readonly items: (T | undefined)[];
  private next = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError('capacity must be a positive integer');
    this.items = new Array<T | undefined>(capacity);
  }

  push(item: T): void {
    this.items[this.next] = item;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count += 1;
  }

  get size(): number {
    return this.count;
  }

  /** The newest item, or undefined when empty. */
  latest(): T | undefined {
    return this.count === 0 ? undefined : this.items[(this.next - 1 + this.capacity) % this.capacity];
  }

  /** The newest `n` items (all by default), oldest first. */
  last(n = this.count): T[] {
    const take = Math.min(n, this.count);
    const out: T[] = [];
    for (let i = take; i > 0; i--) out.push(this.items[(this.next - i + this.capacity) % this.capacity] as T);
    return out;
  }
}

/** Windows are 5 minutes of event time, aligned to the epoch: 12:00, 12:05, 12:10, ... */
export const WINDOW_MS = 5 * 60_000;

export interface Window {
  /** Inclusive. */
  readonly start: Date;
  /** Exclusive: start + 5 minutes. */
  readonly end: Date;
}

/** The tumbling window an event time falls in: floor(time / 5 min). */
export function windowOf(eventTime: Date): Window {
  const ms = eventTime.getTime();
  if (Number.isNaN(ms)) throw new RangeError('event time is not a valid date');
  const start = Math.floor(ms / WINDOW_MS) * WINDOW_MS;
  return { start: new Date(start), end: new Date(start + WINDOW_MS) };
}

/**
 * An event is late when its window closed more than `graceMs` before the highest event time
 * already seen (the watermark): its window is final, so it is recorded, not added. With no
 * watermark yet nothing is late. Exactly at end + grace still counts.
 */
export function isLate(window: Window, graceMs: number, watermark: Date | undefined): boolean {
  return watermark !== undefined && window.end.getTime() + graceMs < watermark.getTime();
}

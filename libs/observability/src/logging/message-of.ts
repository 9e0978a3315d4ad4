/** The message of anything thrown, for a log line or a span status; never throws itself. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'object' && error !== null && 'message' in error) return String(error.message);
  try {
    return String(error);
  } catch {
    return Object.prototype.toString.call(error);
  }
}

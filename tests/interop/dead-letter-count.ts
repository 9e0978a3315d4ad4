// The letters of every dead-letter topic of a run, read with kcat (not with the client under test)
// and counted by the service that wrote them and the record they stand for.
import { DeadLetterHeaders, ServiceNames, deadLetterTopic, type ServiceName } from '@pipeline/contracts';
import { headerOf, readWithKcat, type Position } from './kcat';

/** The letters of every dead-letter topic, counted by service and original record. */
export class DeadLetters {
  private constructor(private readonly counts: ReadonlyMap<string, number>) {}

  static async read(prefix: string): Promise<DeadLetters> {
    const counts = new Map<string, number>();
    for (const service of ServiceNames) {
      for (const letter of await readWithKcat(prefix + deadLetterTopic(service))) {
        const origin = [
          headerOf(letter, DeadLetterHeaders.originalTopic),
          headerOf(letter, DeadLetterHeaders.originalPartition),
          headerOf(letter, DeadLetterHeaders.originalOffset),
        ].join('/');
        const key = `${service} ${origin}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
    return new DeadLetters(counts);
  }

  /** How many letters `service` wrote for the record at `position`. */
  of(service: ServiceName, position: Position): number {
    return this.counts.get(DeadLetters.keyOf(service, position)) ?? 0;
  }

  /** Letters for records that are not in `expected` (`<service> <topic>/<partition>/<offset>` × count). */
  unexpected(expected: ReadonlySet<string>): string[] {
    return [...this.counts].filter(([key]) => !expected.has(key)).map(([key, count]) => `${key} ×${count}`);
  }

  static keyOf(service: ServiceName, position: Position): string {
    return `${service} ${position.topic}/${position.partition}/${position.offset}`;
  }
}

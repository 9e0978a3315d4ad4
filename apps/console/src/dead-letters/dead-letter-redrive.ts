import {
  deadLetterPosition,
  filterDeadLetters,
  FirstCopies,
  planReplay,
  sendReplay,
  type DeadLetterFilter,
  type DeadLetterRecord,
} from '@pipeline/dead-letters';
import type { Kafka } from 'kafkajs';
import type { PageLimits, ReadRecord } from './dead-letter-page';

export interface RedriveResult {
  readonly replayed: number;
  readonly byTopic: readonly { readonly value: string; readonly count: number }[];
  readonly skipped: readonly { readonly position: string; readonly reason: string }[];
  /** Later copies of a dead letter met earlier in this redrive (the same original dead-lettered again): not sent. */
  readonly duplicates: readonly { readonly position: string; readonly firstCopy: string }[];
  /** The dead-letter positions replayed, skipped or not sent again. */
  readonly positions: readonly string[];
}

const byPosition = (a: DeadLetterRecord, b: DeadLetterRecord): number =>
  a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset));

/**
 * Replays dead letters through the code of `npm run dlt -- replay` (`planReplay`, `sendReplay`),
 * a page's worth at a time: records given in dead-letter order are sent in that order, so each
 * key keeps its order, and no more than a page (`limits`) is held at once whatever is redriven.
 * A dead letter the topic holds several copies of is sent once per redrive, however many pages
 * apart its copies are (`FirstCopies` keeps one position per dead letter met, not the records).
 */
export class Redrive {
  private chunk: DeadLetterRecord[] = [];
  private chunkBytes = 0;
  private replayed = 0;
  private readonly byTopic = new Map<string, number>();
  private readonly skipped: { position: string; reason: string }[] = [];
  private readonly duplicates: { position: string; firstCopy: string }[] = [];
  private readonly firstCopies = new FirstCopies();
  private readonly positions: string[] = [];

  constructor(
    private readonly kafka: Kafka,
    private readonly filter: DeadLetterFilter,
    private readonly limits: PageLimits,
  ) {}

  /** One record, in dead-letter order; sends the chunk once it holds a page. */
  async add({ record, bytes }: ReadRecord): Promise<void> {
    if (filterDeadLetters([record], this.filter).length === 0) return;
    this.chunk.push(record);
    this.chunkBytes += bytes;
    if (this.chunk.length >= this.limits.size || this.chunkBytes >= this.limits.maxBytes) await this.flush();
  }

  /** Records in any order (a page, newest first): sent in dead-letter order. */
  async addAll(records: readonly DeadLetterRecord[]): Promise<void> {
    this.chunk.push(...filterDeadLetters(records, this.filter).sort(byPosition));
    await this.flush();
  }

  async finish(): Promise<RedriveResult> {
    await this.flush();
    return {
      replayed: this.replayed,
      byTopic: [...this.byTopic].map(([value, count]) => ({ value, count })),
      skipped: this.skipped,
      duplicates: this.duplicates,
      positions: this.positions,
    };
  }

  private async flush(): Promise<void> {
    const records = this.chunk;
    this.chunk = [];
    this.chunkBytes = 0;
    if (records.length === 0) return;
    const plan = planReplay(records, this.firstCopies);
    const result = await sendReplay(this.kafka, plan);
    this.replayed += result.replayed;
    for (const { value, count } of result.byTopic)
      this.byTopic.set(value, (this.byTopic.get(value) ?? 0) + count);
    for (const { source, reason } of plan.skipped)
      this.skipped.push({ position: deadLetterPosition(source), reason });
    for (const { source, firstCopy } of plan.duplicates)
      this.duplicates.push({ position: deadLetterPosition(source), firstCopy });
    this.positions.push(...records.map(deadLetterPosition));
  }
}

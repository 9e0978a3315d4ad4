import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Admin } from 'kafkajs';
import { KAFKA_ADMIN } from '@pipeline/messaging';
import { OutboxRelayService, queryBacklog } from '@pipeline/outbox-relay';
import { beforeScrape, PipelineMetrics, messageOf } from '@pipeline/observability';
import { DATABASE, type DatabaseClient } from '../database/database.tokens';

export const SCRAPE_TIME_GAUGES_OPTIONS = Symbol('SCRAPE_TIME_GAUGES_OPTIONS');

export interface ScrapeTimeGaugesOptions {
  /** The service's dead-letter topic, with the topic prefix. */
  readonly deadLetterTopic: string;
  /** How long a dead-letter depth stays fresh; Prometheus scrapes every few seconds. */
  readonly deadLetterCacheMs?: number;
}

/**
 * Gauges read from the database and the broker when Prometheus scrapes: the outbox backlog and
 * the dead-letter topic's depth, refreshed through `beforeScrape` (one read in flight, bounded
 * wait, last values kept on an outage).
 */
@Injectable()
export class ScrapeTimeGauges implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Metrics');
  private unregister: (() => void)[] = [];

  constructor(
    @Inject(DATABASE) private readonly database: DatabaseClient,
    @Inject(KAFKA_ADMIN) private readonly admin: Admin,
    private readonly outbox: OutboxRelayService,
    @Inject(SCRAPE_TIME_GAUGES_OPTIONS) private readonly options: ScrapeTimeGaugesOptions,
  ) {}

  onModuleInit(): void {
    this.unregister = [
      beforeScrape(() => this.readOutbox()),
      beforeScrape(() => this.readDeadLetters(), { minIntervalMs: this.options.deadLetterCacheMs ?? 5_000 }),
    ];
  }

  onModuleDestroy(): void {
    for (const unregister of this.unregister) unregister();
    this.unregister = [];
  }

  async readOutbox(): Promise<void> {
    try {
      const backlog = await queryBacklog(this.database, this.outbox.relay.publishedIds());
      PipelineMetrics.outboxBacklog.set(backlog.rows);
      PipelineMetrics.outboxOldestAge.set((backlog.oldestAgeMs ?? 0) / 1_000);
    } catch (error) {
      this.logger.debug(`outbox backlog not read: ${messageOf(error)}`);
    }
  }

  async readDeadLetters(): Promise<void> {
    const topic = this.options.deadLetterTopic;
    try {
      const partitions = await this.admin.fetchTopicOffsets(topic);
      const records = partitions.reduce((sum, { high, low }) => sum + (Number(high) - Number(low)), 0);
      PipelineMetrics.deadLetterDepth.set({ topic }, records);
    } catch (error) {
      this.logger.debug(`depth of ${topic} not read: ${messageOf(error)}`);
    }
  }
}

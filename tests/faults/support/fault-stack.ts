// The five services on one topic prefix, on whichever infrastructure the fault needs (the shared
// one, or the suite's own Kafka / Postgres / maildev), with what a fault does to them: kill -9 a
// service, start it again on its own database and group, or add a second instance to a group.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Admin, Kafka } from 'kafkajs';
import { createKafka } from '@pipeline/messaging';
import { createTestDatabase, type TestDatabase } from '../../support/db';
import { KAFKA_BROKERS, uniqueName } from '../../support/kafka';
import {
  CONSUMED_TOPICS,
  deletePrefixedTopics,
  MAILDEV_API,
  SMTP_URL,
  startService,
  type ServiceName,
  type ServiceUnderTest,
} from '../../support/service-harness';

import { REPORT_DIR } from './fault-report';
import { startOwnMaildev, type OwnMaildev } from './own-maildev';

export const SERVICES: readonly ServiceName[] = ['order', 'payment', 'inventory', 'email', 'analytics'];

export interface StackInfra {
  readonly brokers?: readonly string[];
  readonly smtpUrl?: string;
  readonly maildevApi?: string;
  /** Where the services' databases live; the shared Postgres by default. */
  readonly createDatabase?: (label: string) => Promise<TestDatabase>;
  /** Environment for every service (e.g. replication settings), then per service. */
  readonly env?: Record<string, string>;
  readonly serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
}

export class FaultStack {
  readonly kafka: Kafka;
  readonly admin: Admin;
  readonly maildevApi: string;
  private readonly instances = new Map<ServiceName, ServiceUnderTest[]>();
  private readonly databases = new Map<ServiceName, TestDatabase>();
  private readonly groups = new Map<ServiceName, string>();
  private readonly everStarted = new Map<ServiceName, ServiceUnderTest[]>();
  private ownMaildev: OwnMaildev | undefined;

  private constructor(
    readonly label: string,
    readonly prefix: string,
    private readonly infra: StackInfra,
  ) {
    this.kafka = createKafka({
      brokers: [...(infra.brokers ?? KAFKA_BROKERS)],
      clientId: uniqueName('faults'),
    });
    this.admin = this.kafka.admin();
    this.maildevApi = infra.maildevApi ?? MAILDEV_API;
  }

  /**
   * Without an SMTP server of the caller's, the stack gets a maildev of its own: the shared one
   * holds every email of the whole test run, and the audit reads a maildev's whole list twice a
   * second; grown to tens of thousands, that list stalls maildev past the SMTP greeting and
   * socket timeouts, and a send the server took but did not answer in time goes out again (with
   * its Message-ID): SMTP's own edge, brought on by the harness, not by the fault under test.
   */
  static async start(label: string, given: StackInfra = {}): Promise<FaultStack> {
    const maildev = given.smtpUrl === undefined ? await startOwnMaildev() : undefined;
    const infra = maildev ? { ...given, smtpUrl: maildev.smtpUrl, maildevApi: maildev.apiUrl } : given;
    const stack = new FaultStack(label, `${uniqueName(`faults.${label}`)}.`, infra);
    stack.ownMaildev = maildev;
    await stack.admin.connect();
    const started = await Promise.allSettled(SERVICES.map((name) => stack.startFresh(name)));
    const failure = started.find((result) => result.status === 'rejected');
    if (failure) {
      await stack.stop();
      throw failure.reason;
    }
    return stack;
  }

  private async startFresh(name: ServiceName): Promise<void> {
    const database = await (this.infra.createDatabase ?? createTestDatabase)(`faults_${this.label}_${name}`);
    this.databases.set(name, database);
    this.groups.set(name, uniqueName(`faults.${name}.group`));
    // One retry: on a machine shared with other test runs a first start can miss the 60 s budget.
    await this.startInstance(name).catch(() => this.startInstance(name));
  }

  /** Starts one more instance of `name` on its database and in its consumer group. */
  async startInstance(name: ServiceName): Promise<ServiceUnderTest> {
    const instance = await startService(name, {
      prefix: this.prefix,
      group: this.group(name),
      database: this.database(name),
      label: `faults_${this.label}_${name}`,
      env: {
        KAFKA_BROKERS: (this.infra.brokers ?? KAFKA_BROKERS).join(','),
        SMTP_URL: this.infra.smtpUrl ?? SMTP_URL,
        ...this.infra.env,
        ...this.infra.serviceEnv?.[name],
      },
    });
    this.instances.set(name, [...(this.instances.get(name) ?? []), instance]);
    this.everStarted.set(name, [...(this.everStarted.get(name) ?? []), instance]);
    return instance;
  }

  /** kill -9 of every running instance of `name` (or only `instance`); resolves once it is gone. */
  async kill(name: ServiceName, instance?: ServiceUnderTest): Promise<void> {
    const victims = instance ? [instance] : this.running(name);
    for (const victim of victims) {
      victim.process.child.kill('SIGKILL');
      await victim.process.exited;
    }
    this.instances.set(
      name,
      this.running(name).filter((candidate) => !victims.includes(candidate)),
    );
  }

  running(name: ServiceName): ServiceUnderTest[] {
    return (this.instances.get(name) ?? []).filter(
      (instance) => instance.process.child.exitCode === null && instance.process.child.signalCode === null,
    );
  }

  database(name: ServiceName): TestDatabase {
    const database = this.databases.get(name);
    if (!database) throw new Error(`${name}-service has no database`);
    return database;
  }

  group(name: ServiceName): string {
    const group = this.groups.get(name);
    if (!group) throw new Error(`${name}-service has no group`);
    return group;
  }

  /** The base URL of a running instance of `name` (the first one). */
  url(name: ServiceName): string | undefined {
    return this.running(name)[0]?.baseUrl;
  }

  /** Every instance's output (killed ones too), under reports/faults/logs/, to read after a failure. */
  private async saveLogs(): Promise<void> {
    const dir = join(REPORT_DIR, 'logs', this.label);
    await mkdir(dir, { recursive: true });
    for (const [name, instances] of this.everStarted)
      for (const [index, instance] of instances.entries())
        await writeFile(join(dir, `${name}-${index + 1}.log`), instance.process.output());
  }

  consumed(name: ServiceName): string[] {
    return CONSUMED_TOPICS[name].map((topic) => this.prefix + topic);
  }

  async stop(): Promise<void> {
    await this.saveLogs();
    await Promise.allSettled([...this.instances.values()].flat().map((instance) => instance.stop()));
    await Promise.allSettled([...this.databases.values()].map((database) => database.drop()));
    await deletePrefixedTopics(this.kafka, this.prefix).catch(() => undefined);
    await this.admin.disconnect();
    await this.ownMaildev?.destroy();
  }
}

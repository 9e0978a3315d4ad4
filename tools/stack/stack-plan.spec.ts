import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceRuntimeEnv } from '../bench/service-runtime';
import { parseInstances } from './stack-args';
import { planStack } from './stack-plan';

const repoRoot = resolve(__dirname, '../..');
const env = { PATH: '/usr/bin', PGHOST: '127.0.0.1', PGPORT: '5432', PGUSER: 'postgres', NODE_OPTIONS: '' };

function plan(instances: string[], extraEnv: Record<string, string | undefined> = {}, withConsole = true) {
  return planStack({
    repoRoot,
    instances: parseInstances(instances),
    console: withConsole,
    env: { ...env, ...extraEnv },
  });
}

const byName = (processes: ReturnType<typeof plan>, name: string) => {
  const found = processes.find((p) => p.spec.name === name);
  if (found === undefined) throw new Error(`no ${name} in ${processes.map((p) => p.spec.name).join(', ')}`);
  return found;
};

describe('planStack', () => {
  it('runs each service from dist/ with the environment of the local stack', () => {
    const order = byName(plan([]), 'order');
    expect(order.spec).toMatchObject({
      command: process.execPath,
      args: ['dist/apps/order-service/src/main.js'],
      cwd: repoRoot,
      logFile: `${repoRoot}/.run/services/order.log`,
      pidFile: `${repoRoot}/.run/services/order.pid`,
    });
    expect(order.spec.env).toMatchObject({
      ...serviceRuntimeEnv(repoRoot, {}),
      PATH: '/usr/bin',
      PORT: '3000',
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/order_service',
      KAFKA_BROKERS: '127.0.0.1:9092',
      KAFKA_CLIENT_ID: 'order-service',
      SMTP_URL: 'smtp://127.0.0.1:1025',
      OTEL_SERVICE_NAME: 'order-service',
      OTEL_TRACES_EXPORTER: 'zipkin',
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      OTEL_EXPORTER_ZIPKIN_ENDPOINT: 'http://127.0.0.1:9411/api/v2/spans',
      LOG_FORMAT: 'json',
    });
    expect(order.readyUrl).toBe('http://127.0.0.1:3000/health/ready');
  });

  it('gives extra instances ports of their own, base + 100 per instance, in the same group and database', () => {
    const processes = plan(['payment=3']);
    // At least the five and the console (a fork adds its generated services between them).
    expect(processes.map((p) => p.spec.name)).toEqual(
      expect.arrayContaining([
        'order',
        'payment',
        'payment-2',
        'payment-3',
        'inventory',
        'email',
        'analytics',
        'console',
      ]),
    );
    expect(processes.at(-1)?.spec.name).toBe('console');
    const payments = ['payment', 'payment-2', 'payment-3'].map((name) => byName(processes, name));
    expect(payments.map((p) => p.port)).toEqual([3001, 3101, 3201]);
    expect(payments.map((p) => p.label)).toEqual([
      'payment-service',
      'payment-service-2',
      'payment-service-3',
    ]);
    expect(new Set(payments.map((p) => p.spec.env.DATABASE_URL)).size).toBe(1);
    for (const p of payments) expect(p.spec.env.KAFKA_CONSUMER_GROUP).toBeUndefined();
    expect(payments.map((p) => p.spec.env.KAFKA_CLIENT_ID)).toEqual([
      'payment-service',
      'payment-service-2',
      'payment-service-3',
    ]);
    expect(payments.map((p) => p.spec.env.OTEL_RESOURCE_ATTRIBUTES)).toEqual([
      'service.instance.id=payment',
      'service.instance.id=payment-2',
      'service.instance.id=payment-3',
    ]);
    expect(payments.map((p) => p.spec.logFile.split('/').at(-1))).toEqual([
      'payment.log',
      'payment-2.log',
      'payment-3.log',
    ]);
  });

  it('lets the caller override the defaults, appends its NODE_OPTIONS and encodes the credentials', () => {
    const email = byName(
      plan([], {
        KAFKA_BROKERS: '10.0.0.1:9092',
        SMTP_URL: 'smtp://mail:25',
        PGUSER: 'me',
        PGPASSWORD: 'p@ss/word',
        NODE_OPTIONS: '--inspect',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=dev',
        LOG_FORMAT: '',
      }),
      'email',
    );
    expect(email.spec.env).toMatchObject({
      KAFKA_BROKERS: '10.0.0.1:9092',
      SMTP_URL: 'smtp://mail:25',
      DATABASE_URL: 'postgresql://me:p%40ss%2Fword@127.0.0.1:5432/email_service',
      NODE_OPTIONS: `${serviceRuntimeEnv(repoRoot, {}).NODE_OPTIONS} --inspect`,
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=dev,service.instance.id=email',
      LOG_FORMAT: 'json',
    });
  });

  it('gives the console every instance of every service, the UIs, and the caller’s token', () => {
    const console_ = byName(plan(['payment=2', 'email=2'], { CONSOLE_TOKEN: 's3cret' }), 'console');
    expect(console_.spec.args).toEqual(['dist/apps/console/src/main.js']);
    expect(console_.readyUrl).toBe('http://127.0.0.1:3005/health');
    expect(console_.spec.env).toMatchObject({
      PORT: '3005',
      HOST: '127.0.0.1',
      CONSOLE_TOKEN: 's3cret',
      KAFKA_BROKERS: '127.0.0.1:9092',
      ORDER_SERVICE_URL: 'http://127.0.0.1:3000',
      PAYMENT_SERVICE_URL: 'http://127.0.0.1:3001,http://127.0.0.1:3101',
      INVENTORY_SERVICE_URL: 'http://127.0.0.1:3002',
      EMAIL_SERVICE_URL: 'http://127.0.0.1:3003,http://127.0.0.1:3103',
      ANALYTICS_SERVICE_URL: 'http://127.0.0.1:3004',
      MAIL_UI_KIND: 'maildev',
      MAIL_UI_URL: 'http://127.0.0.1:1080',
      TRACE_UI_URL: 'http://127.0.0.1:9411',
      TRACE_UI_KIND: 'zipkin',
    });
    expect(console_.spec.env.DATABASE_URL).toBeUndefined();
  });

  it('leaves an empty CONSOLE_TOKEN unset (read-only), and the console out with --no-console', () => {
    expect(byName(plan([], { CONSOLE_TOKEN: '' }), 'console').spec.env).not.toHaveProperty('CONSOLE_TOKEN');
    expect(plan([], {}, false).map((p) => p.service)).not.toContain('console');
  });
});

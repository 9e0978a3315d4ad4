// The operations console as a real process from dist/, and a real browser to drive it:
// playwright-core with Debian's Chromium (no downloaded browser: `npx playwright install` cannot
// reach its CDN here).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { ServiceName } from '@pipeline/contracts';
import { KAFKA_BROKERS, uniqueName } from '../support/kafka';
import { eventually, freePort, REPO_ROOT, type RunningProcess, startNode } from '../support/processes';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Every page the browser tests visit is saved here; the README shows copies of them. */
export const SCREENSHOT_DIR = join(REPO_ROOT, 'reports', 'console-screenshots');
export const TOKEN = 'console-test-token';

export interface ConsoleUnderTest {
  readonly baseUrl: string;
  readonly process: RunningProcess;
  readonly group: string;
  stop(): Promise<void>;
}

export interface StartConsoleOptions {
  readonly prefix: string;
  /** Base URLs per service (several for several instances). */
  readonly services?: Partial<Record<ServiceName, readonly string[]>>;
  /** Defaults to TOKEN; `undefined` starts a read-only console. */
  readonly token?: string | undefined;
  readonly env?: Record<string, string>;
}

/** The `<SERVICE>_SERVICE_GROUP` variables naming a test pipeline's (uniquely named) groups. */
export const serviceGroupEnv = (
  services: readonly ServiceName[],
  groupOf: (service: ServiceName) => string,
): Record<string, string> =>
  Object.fromEntries(services.map((name) => [`${name.toUpperCase()}_SERVICE_GROUP`, groupOf(name)]));

export async function startConsole(options: StartConsoleOptions): Promise<ConsoleUnderTest> {
  const port = await freePort();
  const group = uniqueName('console.group');
  const serviceEnv = Object.fromEntries(
    Object.entries(options.services ?? {}).map(([name, urls]) => [
      `${name.toUpperCase()}_SERVICE_URL`,
      urls.join(','),
    ]),
  );
  const token = 'token' in options ? options.token : TOKEN;
  const child = startNode(join(REPO_ROOT, 'dist/apps/console/src/main.js'), {
    PORT: String(port),
    KAFKA_BROKERS: KAFKA_BROKERS.join(','),
    KAFKA_TOPIC_PREFIX: options.prefix,
    CONSOLE_CONSUMER_GROUP: group,
    ...(token === undefined ? {} : { CONSOLE_TOKEN: token }),
    LOG_LEVEL: 'info',
    ...serviceEnv,
    ...options.env,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  let exit: number | string | undefined;
  void child.exited.then((code) => (exit = code));
  const stop = async () => {
    if (child.child.exitCode === null && child.child.signalCode === null) {
      child.child.kill('SIGTERM');
      const timer = setTimeout(() => child.child.kill('SIGKILL'), 10_000);
      await child.exited;
      clearTimeout(timer);
    }
  };
  try {
    await eventually(
      async () => {
        if (exit !== undefined)
          throw new Error(`console exited with ${exit}:\n${child.output().slice(-3000)}`);
        return (await fetch(`${baseUrl}/health`)).ok || undefined;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'the console answering /health' },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, process: child, group, stop };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // As root on a closed network: no sandbox, no background connections to Google's hosts.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** A full-page screenshot under reports/console-screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Signs the page's browser context in through the login form. */
export async function signIn(page: Page, baseUrl: string, token = TOKEN): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('Console token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${baseUrl}/`);
}

import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Availability } from '../experiment';

/** Keep in sync with KAFKA_VERSION_DEFAULT in infra/bin/lib/kafka-common.sh. */
const KAFKA_VERSION_DEFAULT = '4.1.2';
/** Short-lived tools: small heap, quick start (as infra/bin/lib/kafka-common.sh runs them). */
const TOOL_JVM_OPTS = ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Xshare:auto'];

export interface KafkaCliTools {
  readonly java: string;
  /** The folder of the Kafka jars (the Apache tarball's libs/), as `npm run kafka:start` fills it. */
  readonly libs: string;
}

const HOW_TO =
  'Install Java 17+ (Debian: apt-get install -y openjdk-17-jre-headless), then run `npm run kafka:start` once: it copies the Kafka jars from Maven Central into ~/.cache/order-pipeline/kafka-<version>/libs.';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where infra/bin/*.sh find java and the jars: the same environment variables, the same defaults. */
export function locateKafkaCli(env: NodeJS.ProcessEnv = process.env): KafkaCliTools | { missing: string } {
  const fromHome = env.JAVA_HOME === undefined ? undefined : join(env.JAVA_HOME, 'bin', 'java');
  const java =
    fromHome !== undefined && executable(fromHome)
      ? fromHome
      : (env.PATH ?? '')
          .split(delimiter)
          .filter(Boolean)
          .map((dir) => join(dir, 'java'))
          .find(executable);
  if (java === undefined)
    return { missing: 'java was not found (neither $JAVA_HOME/bin/java nor java on PATH)' };
  const version = env.KAFKA_VERSION ?? KAFKA_VERSION_DEFAULT;
  const cache =
    env.PIPELINE_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'order-pipeline');
  const libs = join(cache, `kafka-${version}`, 'libs');
  if (!existsSync(join(libs, `kafka-tools-${version}.jar`)))
    return { missing: `the Kafka ${version} jars were not found in ${libs}` };
  return { java, libs };
}

/** Availability of an experiment that needs the Kafka command-line tools. */
export function kafkaCliAvailability(env: NodeJS.ProcessEnv = process.env): Availability {
  const tools = locateKafkaCli(env);
  return 'missing' in tools
    ? {
        available: false,
        reason: `The Kafka command-line tools are missing: ${tools.missing}.`,
        howTo: HOW_TO,
      }
    : { available: true };
}

export interface KafkaToolOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
}

/** Runs one Kafka tool's main class (`org.apache.kafka.tools.LogDirsCommand`, ...) and returns its stdout. */
export function runKafkaTool(
  mainClass: string,
  args: readonly string[],
  options: KafkaToolOptions = {},
): Promise<string> {
  const tools = locateKafkaCli();
  if ('missing' in tools) return Promise.reject(new Error(`cannot run ${mainClass}: ${tools.missing}`));
  return new Promise((resolve, reject) => {
    execFile(
      tools.java,
      [...TOOL_JVM_OPTS, '-cp', join(tools.libs, '*'), mainClass, ...args],
      {
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 16 * 1024 * 1024,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${mainClass} failed: ${error.message}\n${stderr.slice(-2000)}`));
        else resolve(stdout);
      },
    );
  });
}

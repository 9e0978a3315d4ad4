import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import type { Availability } from '../experiment';

/** Keep in sync with KAFKA_VERSION_DEFAULT in infra/bin/lib/kafka-common.sh. */
const KAFKA_VERSION_DEFAULT = '4.1.2';
/** Short-lived tools: small heap, quick start (KAFKA_TOOLS_JVM_OPTS of infra/bin/lib/kafka-common.sh). */
const TOOL_JVM_OPTS = ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Xshare:auto'];

export interface KafkaCliTools {
  readonly java: string;
  /** The folder of the Kafka jars (the classpath is `<libs>/*`), as `npm run kafka:start` fills it. */
  readonly libs: string;
  /** infra/kafka/tools-log4j2.xml of the checkout, when the code runs from one. */
  readonly log4jConfig: string | undefined;
  /** infra/bin/kafka.sh of the checkout: it kills and starts the cluster's nodes. */
  readonly kafkaSh: string | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

const HOW_TO =
  'Install Java 17+ (Debian: apt-get install -y openjdk-17-jre-headless), then run `npm run kafka:start` once ' +
  '(or `bash infra/bin/kafka.sh fetch`): it copies the Kafka jars from Maven Central into ' +
  '~/.cache/order-pipeline/kafka-<version>/libs. PIPELINE_CACHE_DIR and KAFKA_VERSION choose another cache or version.';

/**
 * Finds java and Kafka's jars where infra/bin/lib/kafka-common.sh does: `$JAVA_HOME/bin/java`, else
 * `java` on PATH; the jars in `${PIPELINE_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/order-pipeline}/kafka-${KAFKA_VERSION}/libs`.
 * Nothing is fetched here: an experiment only reports what is missing.
 */
export function locateKafkaCli(
  env: Env = process.env,
  from: string = __dirname,
): KafkaCliTools | { missing: string } {
  const java = findJava(env);
  if (java === undefined)
    return { missing: 'java was not found (neither $JAVA_HOME/bin/java nor java on PATH)' };
  const version = env.KAFKA_VERSION ?? KAFKA_VERSION_DEFAULT;
  const cache =
    env.PIPELINE_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'order-pipeline');
  const libs = join(cache, `kafka-${version}`, 'libs');
  if (!hasJar(libs, `kafka-tools-${version}.jar`) || !hasJar(libs, `kafka-clients-${version}.jar`))
    return { missing: `the Kafka ${version} jars were not found in ${libs}` };
  const root = repositoryRoot(from);
  const log4jConfig = root && join(root, 'infra/kafka/tools-log4j2.xml');
  return {
    java,
    libs,
    log4jConfig: log4jConfig !== undefined && existsSync(log4jConfig) ? log4jConfig : undefined,
    kafkaSh: root && join(root, 'infra/bin/kafka.sh'),
  };
}

/** Availability of an experiment that needs the Kafka command-line tools. */
export function kafkaCliAvailability(env: Env = process.env): Availability {
  const tools = locateKafkaCli(env);
  return 'missing' in tools
    ? {
        available: false,
        reason: `The Kafka command-line tools are missing: ${tools.missing}.`,
        howTo: HOW_TO,
      }
    : { available: true };
}

/** The tools, or an error that says what is missing and how to get it. */
export function requireKafkaCli(): KafkaCliTools {
  const tools = locateKafkaCli();
  if ('missing' in tools)
    throw new Error(`The Kafka command-line tools are missing: ${tools.missing}. ${HOW_TO}`);
  return tools;
}

/** `java <jvm options> [-Dlog4j2.configurationFile=...] -cp '<libs>/*' <main class> <args>`, as kafka-common.sh runs a tool. */
export function kafkaToolCommand(
  tools: KafkaCliTools,
  mainClass: string,
  args: readonly string[],
  jvmOptions: readonly string[] = TOOL_JVM_OPTS,
): string[] {
  return [
    ...jvmOptions,
    ...(tools.log4jConfig ? [`-Dlog4j2.configurationFile=${tools.log4jConfig}`] : []),
    '-cp',
    join(tools.libs, '*'),
    mainClass,
    ...args,
  ];
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
      kafkaToolCommand(tools, mainClass, args),
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

function findJava(env: Env): string | undefined {
  if (env.JAVA_HOME && executable(join(env.JAVA_HOME, 'bin', 'java')))
    return join(env.JAVA_HOME, 'bin', 'java');
  return (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, 'java'))
    .find(executable);
}

/** The checkout this code runs from (source or dist/): the nearest folder above with infra/bin/kafka.sh. */
export function repositoryRoot(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'infra/bin/kafka.sh'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function hasJar(dir: string, name: string): boolean {
  try {
    return readdirSync(dir).includes(name);
  } catch {
    return false;
  }
}

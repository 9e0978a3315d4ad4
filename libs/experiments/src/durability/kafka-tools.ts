import { accessSync, constants, existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

/** Keep in sync with infra/bin/lib/kafka-common.sh (KAFKA_VERSION_DEFAULT). */
const KAFKA_VERSION_DEFAULT = '4.1.2';

export interface KafkaTools {
  readonly java: string;
  /** The folder of Kafka's jars: the classpath is `<libs>/*`. */
  readonly libs: string;
  /** infra/kafka/tools-log4j2.xml of the checkout, when the code runs from one. */
  readonly log4jConfig: string | undefined;
  /** infra/bin/kafka.sh of the checkout: it kills and starts the cluster's nodes. */
  readonly kafkaSh: string | undefined;
}

export type KafkaToolsLookup =
  | { readonly found: true; readonly tools: KafkaTools }
  | { readonly found: false; readonly reason: string; readonly howTo: string };

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Finds java and Kafka's jars where the repository's scripts do (infra/bin/lib/kafka-common.sh):
 * `$JAVA_HOME/bin/java`, else `java` on PATH; the jars in
 * `${PIPELINE_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/order-pipeline}/kafka-${KAFKA_VERSION}/libs`.
 * Nothing is fetched here: the experiment only reports what is missing.
 */
export function findKafkaTools(env: Env = process.env, from: string = __dirname): KafkaToolsLookup {
  const version = env.KAFKA_VERSION ?? KAFKA_VERSION_DEFAULT;
  const cache =
    env.PIPELINE_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'order-pipeline');
  const libs = join(cache, `kafka-${version}`, 'libs');
  const java = findJava(env);
  const fetch = 'bash infra/bin/kafka.sh fetch (Maven Central, once; npm run kafka:start does it too)';
  if (java === undefined)
    return {
      found: false,
      reason: 'java not found (JAVA_HOME, PATH): the producer perf tool is a Java program',
      howTo: `Install Java 17+ (Debian: apt-get install -y openjdk-17-jre-headless), then ${fetch}.`,
    };
  if (!hasJar(libs, `kafka-tools-${version}.jar`) || !hasJar(libs, `kafka-clients-${version}.jar`))
    return {
      found: false,
      reason: `Kafka ${version}'s jars are not in ${libs}`,
      howTo: `Fetch them with ${fetch}; PIPELINE_CACHE_DIR and KAFKA_VERSION choose another cache or version.`,
    };
  const root = repositoryRoot(from);
  const log4jConfig = root && join(root, 'infra/kafka/tools-log4j2.xml');
  return {
    found: true,
    tools: {
      java,
      libs,
      log4jConfig: log4jConfig !== undefined && existsSync(log4jConfig) ? log4jConfig : undefined,
      kafkaSh: root && join(root, 'infra/bin/kafka.sh'),
    },
  };
}

function findJava(env: Env): string | undefined {
  if (env.JAVA_HOME && executable(join(env.JAVA_HOME, 'bin', 'java')))
    return join(env.JAVA_HOME, 'bin', 'java');
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean))
    if (executable(join(dir, 'java'))) return join(dir, 'java');
  return undefined;
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

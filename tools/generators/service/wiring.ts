// Everything outside the service's own folders that lists the services: the stack, the bench,
// the Kubernetes manifests' source, the console, docker-compose, lint boundaries, the database
// tools, the test harness, and a line in the README.
import type { Tree } from '@nx/devkit';
import type { ServicePlan } from './plan.js';
import { STACK_PLAN } from './plan.js';
import { addArrayElement, addObjectProperty, addToStringUnion } from './source-edits.js';

const edit = (tree: Tree, path: string, change: (text: string) => string): void => {
  const text = tree.read(path, 'utf-8');
  if (text === null) throw new Error(`${path} is missing`);
  tree.write(path, change(text));
};

export function wireService(tree: Tree, plan: ServicePlan): void {
  const { name, port } = plan;
  const quoted = `'${name}'`;
  edit(tree, STACK_PLAN, (t) => addObjectProperty(STACK_PLAN, t, 'ServicePorts', name, String(port)));
  const k8s = 'tools/k8s/pipeline-services.ts';
  edit(tree, k8s, (t) =>
    addObjectProperty(
      k8s,
      addObjectProperty(k8s, t, 'PORTS', name, String(port)),
      'PROD_CPU',
      name,
      "'200m'",
    ),
  );
  const console = 'apps/console/src/config.ts';
  edit(tree, console, (t) => addObjectProperty(console, t, 'DEFAULT_PORTS', name, String(port)));
  const bench = 'tools/bench/stack-under-test.ts';
  edit(tree, bench, (t) => addArrayElement(bench, t, 'Services', quoted));
  const harness = 'tests/support/service-harness.ts';
  const topics = plan.consumedTopicKeys.map((key) => plan.consumed.find((h) => h.event.topicKey === key)!);
  edit(tree, harness, (t) =>
    addObjectProperty(
      harness,
      addToStringUnion(harness, t, 'ServiceName', name),
      'CONSUMED_TOPICS',
      name,
      `[${topics.map((h) => `'${h.event.topicName}'`).join(', ')}]`,
    ),
  );
  edit(tree, 'scripts/db/lib.mjs', (t) => addArrayElement('lib.mjs', t, 'SERVICES', quoted));
  edit(tree, 'scripts/db/lib.d.mts', (t) => addToStringUnion('lib.d.mts', t, 'ServiceName', name));
  edit(tree, 'eslint.config.mjs', (t) =>
    addArrayElement('eslint.config.mjs', t, 'serviceScopes', quoted, (e) => e.getText() === "'console'"),
  );
  edit(tree, 'docker-compose.yml', (t) => addComposeService(t, plan));
  edit(tree, 'README.md', (t) => addReadmeLine(t, plan));
}

function addComposeService(text: string, plan: ServicePlan): string {
  const block = `  ${plan.app}:
    <<: *service
    environment:
      <<: *service-env
      SERVICE: ${plan.name}
      PORT: '${plan.port}'
      DATABASE_URL: postgresql://postgres:postgres@postgres:5432/${plan.name}_service
      KAFKA_CLIENT_ID: ${plan.app}
      OTEL_SERVICE_NAME: ${plan.app}
    ports:
      - '127.0.0.1:${plan.port}:${plan.port}'

`;
  const consoleAt = text.search(/^ {2}# The operations console/m);
  if (consoleAt < 0)
    throw new Error('docker-compose.yml: no "# The operations console" comment to insert before');
  let next = text.slice(0, consoleAt) + block + text.slice(consoleAt);
  const urls = [...next.matchAll(/^ {6}[A-Z]+_SERVICE_URL: .*$/gm)];
  const last = urls[urls.length - 1];
  if (last === undefined) throw new Error('docker-compose.yml: no *_SERVICE_URL of the console');
  const at = last.index + last[0].length;
  const url = `\n      ${plan.name.toUpperCase()}_SERVICE_URL: http://${plan.app}:${plan.port}`;
  next = next.slice(0, at) + url + next.slice(at);
  return next;
}

/** The line goes into the README's Layout, after the line of apps/<name>-service/. */
function addReadmeLine(text: string, plan: ServicePlan): string {
  const anchor = /^apps\/console\/ .*$/m.exec(text);
  if (anchor === null) throw new Error('README.md: no "apps/console/" line in the Layout');
  const consumed = plan.consumed.map((h) => h.event.type).join(', ');
  const produced = plan.produced.map((p) => p.type).join(', ') || 'nothing';
  const line = `${`apps/${plan.app}/`.padEnd(24)} generated (nx g @pipeline/tools:service): consumes ${consumed}, produces ${produced}, port ${plan.port}\n`;
  return text.slice(0, anchor.index) + line + text.slice(anchor.index);
}

// HTTP/1.1 written by hand over a socket: the only way to send what a well-behaved client
// never sends (duplicated headers, invalid UTF-8, a body that lies about its type).
import { connect } from 'node:net';

export interface RawAnswer {
  readonly status: number;
  readonly body: string;
}

export interface RawRequest {
  readonly method: string;
  readonly path: string;
  /** In order, duplicates allowed. Content-Length and Connection are added. */
  readonly headers?: readonly (readonly [string, string])[];
  readonly body?: string | Buffer;
}

export async function rawHttp(baseUrl: string, request: RawRequest, timeoutMs = 30_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  const body =
    typeof request.body === 'string' ? Buffer.from(request.body) : (request.body ?? Buffer.alloc(0));
  const head = [
    `${request.method} ${request.path} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    ...(request.headers ?? []).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${body.length}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');
  const response = await new Promise<Buffer>((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks)));
    socket.on('error', reject);
    socket.write(Buffer.concat([Buffer.from(head, 'latin1'), body]));
  });
  const text = response.toString('utf8');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  const separator = text.indexOf('\r\n\r\n');
  let payload = separator < 0 ? '' : text.slice(separator + 4);
  if (/\r\ntransfer-encoding: chunked\r\n/i.test(text.slice(0, separator + 2))) payload = unchunk(payload);
  return { status, body: payload };
}

function unchunk(text: string): string {
  let out = '';
  let rest = text;
  for (;;) {
    const line = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, line), 16);
    if (!(size > 0)) return out;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}

import { connect } from 'node:net';

/** One request of a sweep and what the endpoint answered: an HTTP status, or 'closed' when it hung up without one. */
export interface SweepAnswer {
  request: string;
  status: number | 'closed';
}

export interface RawRequest {
  name: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Sent as it is; with `declared`, Content-Length says that many bytes and the client stops short. */
  body?: string;
  declared?: number;
}

/**
 * The requests an attacker who reaches a management port would try
 * (docs/security.md): every route without a credential, with a wrong one,
 * from a browser page (Origin, a "simple" text/plain POST), with truncated
 * bodies and wrong content types; and, given the real token, the same
 * cross-origin and malformed requests with it, which must be refused too.
 * `id` is the process behind the port, so the drain bodies are otherwise
 * exactly what a real drain sends.
 */
export function sweepRequests(id: string, token?: string): RawRequest[] {
  const drain = JSON.stringify({ id });
  const cut = JSON.stringify({ cut: true });
  const json = { 'content-type': 'application/json' };
  const evil = { origin: 'http://evil.example' };
  const wrong = { authorization: 'Bearer hmt_not-the-token' };
  const list: RawRequest[] = [];
  for (const [who, auth] of [
    ['no credential', {}],
    ['a wrong token', wrong],
    ['a token in the query', {}],
  ] as const) {
    const query = who === 'a token in the query' && token !== undefined ? `?token=${encodeURIComponent(token)}` : '';
    list.push(
      { name: `GET /status, ${who}`, method: 'GET', path: `/status${query}`, headers: { ...auth } },
      { name: `GET /metrics, ${who}`, method: 'GET', path: `/metrics${query}`, headers: { ...auth } },
      {
        name: `POST /drain, ${who}`,
        method: 'POST',
        path: `/drain${query}`,
        headers: { ...auth, ...json },
        body: drain,
      },
      { name: `POST /drain without a body, ${who}`, method: 'POST', path: `/drain${query}`, headers: { ...auth } },
      {
        name: `POST /drain as text/plain from a page, ${who}`,
        method: 'POST',
        path: `/drain${query}`,
        headers: { ...auth, ...evil, 'content-type': 'text/plain' },
        body: 'x',
      },
      {
        name: `POST /drain truncated, ${who}`,
        method: 'POST',
        path: `/drain${query}`,
        headers: { ...auth, ...json },
        body: drain.slice(0, 5),
        declared: drain.length,
      },
      {
        name: `POST /drain with Origin, ${who}`,
        method: 'POST',
        path: `/drain${query}`,
        headers: { ...auth, ...evil, ...json },
        body: drain,
      },
      {
        name: `POST /faults/traffic-cut, ${who}`,
        method: 'POST',
        path: `/faults/traffic-cut${query}`,
        headers: { ...auth, ...json },
        body: cut,
      },
      {
        name: `POST /faults/traffic-cut truncated, ${who}`,
        method: 'POST',
        path: `/faults/traffic-cut${query}`,
        headers: { ...auth, ...json },
        body: cut.slice(0, 4),
        declared: cut.length,
      },
      {
        name: `POST /faults/traffic-cut as text/plain, ${who}`,
        method: 'POST',
        path: `/faults/traffic-cut${query}`,
        headers: { ...auth, 'content-type': 'text/plain' },
        body: cut,
      },
      {
        name: `GET /status with Origin, ${who}`,
        method: 'GET',
        path: `/status${query}`,
        headers: { ...auth, ...evil },
      },
    );
  }
  if (token !== undefined) {
    // The real token does not open the door to a browser page.
    const bearer = { authorization: `Bearer ${token}` };
    list.push(
      {
        name: 'GET /status with Origin and the token',
        method: 'GET',
        path: '/status',
        headers: { ...bearer, ...evil },
      },
      {
        name: 'POST /drain with Origin and the token',
        method: 'POST',
        path: '/drain',
        headers: { ...bearer, ...evil, ...json },
        body: drain,
      },
      {
        name: 'POST /faults/traffic-cut with Origin and the token',
        method: 'POST',
        path: '/faults/traffic-cut',
        headers: { ...bearer, ...evil, ...json },
        body: cut,
      },
    );
  }
  return list;
}

/** Sends every sweep request to `address` ("host:port") on a connection of its own; resolves with each answer. */
export async function sweepManagementPort(address: string, id: string, token?: string): Promise<SweepAnswer[]> {
  const answers: SweepAnswer[] = [];
  for (const request of sweepRequests(id, token))
    answers.push({ request: request.name, status: await sendRaw(address, request) });
  return answers;
}

/** One request over a raw socket (fetch would complete a truncated body or refuse to send it); 'closed' if no status line came back. */
export function sendRaw(address: string, request: RawRequest, timeoutMs = 10_000): Promise<number | 'closed'> {
  const at = address.lastIndexOf(':');
  const body = request.body ?? '';
  const length = request.declared ?? (request.body === undefined ? undefined : Buffer.byteLength(body));
  const head = [
    `${request.method} ${request.path} HTTP/1.1`,
    `host: ${address}`,
    'connection: close',
    ...Object.entries(request.headers).map(([k, v]) => `${k}: ${v}`),
  ];
  if (length !== undefined) head.push(`content-length: ${length}`);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(address.slice(at + 1)), address.slice(0, at));
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${request.name}: no answer from ${address} in ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined); // a reset is an answer too: 'closed'
    socket.on('close', () => {
      clearTimeout(timer);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received);
      resolve(status === null ? 'closed' : Number(status[1]));
    });
    // A truncated body: the client sends part of it, then ends its side as if it had crashed mid-request.
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  });
}

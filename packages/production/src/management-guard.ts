import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ConfigError } from '@herald/core';

/**
 * The management endpoint's door (docs/security.md): who may call it and
 * what a state-changing call must look like. Every check answers before any
 * route runs, so a refused request changes nothing and learns nothing (not
 * even which routes exist).
 */

/** An answer that ends the request: status and JSON body {code, message}. */
export type Refusal = [number, { code: string; message: string }];

/** The SHA-256 of a management token as lowercase hex: what management.tokenHash holds. */
export function hashManagementToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Refuses a request a browser could have sent (any Origin header: a page on
 * another site must not reach a port on the operator's network, and no
 * legitimate caller of this port is a web page), then one without the
 * cluster's bearer token. The token is compared by its hash in constant time.
 */
export function checkCaller(req: IncomingMessage, tokenHash: string): Refusal | null {
  if (req.headers.origin !== undefined)
    return [403, { code: 'FORBIDDEN', message: 'cross-origin requests are refused on the management endpoint' }];
  const match = /^Bearer ([\x21-\x7e]{1,512})$/.exec(req.headers.authorization ?? '');
  if (match === null || !sameHash(hashManagementToken(match[1]!), tokenHash))
    return [
      401,
      {
        code: 'UNAUTHENTICATED',
        message: 'the management endpoint needs the cluster management token (Authorization: Bearer ...)',
      },
    ];
  return null;
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** The largest body a management route reads. */
const MAX_BODY = 4096;

/**
 * The body of a state-changing route: application/json, complete (exactly
 * Content-Length bytes, or a chunked body that ended), at most 4 KiB and
 * valid JSON. Anything else is refused; a client that hangs up mid-body gets
 * nothing and changes nothing.
 */
export async function readJsonBody(
  req: IncomingMessage,
): Promise<{ ok: true; value: unknown } | { ok: false; refusal: Refusal }> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json')
    return {
      ok: false,
      refusal: [415, { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'the body must be application/json' }],
    };
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY) return invalid(`the body is over ${MAX_BODY} bytes`);
      chunks.push(chunk);
    }
  } catch {
    return invalid('the body was cut short');
  }
  // A client that closes its side early ends the stream without an error on some paths: check completeness ourselves.
  if (!req.complete) return invalid('the body was cut short');
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) !== size)
    return invalid('the body is shorter than its Content-Length');
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch {
    return invalid('the body is not valid JSON');
  }
}

function invalid(message: string): { ok: false; refusal: Refusal } {
  return { ok: false, refusal: [400, { code: 'VALIDATION', message }] };
}

/**
 * The management token hash a production process starts with. Secure by
 * default: without one the process refuses to start rather than serve an
 * open management port (or none an operator expects to reach).
 */
export function requiredTokenHash(tokenHash: string | null): string {
  if (tokenHash === null)
    throw new ConfigError(
      'management.tokenHash',
      'is required in production: run `herald admin credential --out <file>` and put the hash it prints here (docs/security.md)',
    );
  return tokenHash;
}

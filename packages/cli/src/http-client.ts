import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { request } from 'node:http';

/** A JSON answer from the API; `error` is the API's `{ code, message }` on 4xx/5xx. */
export interface ApiAnswer<T> {
  status: number;
  body: T;
}

/** Where the API is and the token to call it with (`Authorization: Bearer`). */
export interface ApiTarget {
  url: string;
  token: string;
}

/** Calls the JSON API. Throws with the API's error code when the status is not 2xx. */
export async function api<T>(target: ApiTarget, method: string, path: string, body?: unknown): Promise<T> {
  const auth = { authorization: `Bearer ${target.token}` };
  const response = await fetch(target.url + path, {
    method,
    headers: body === undefined ? auth : { 'content-type': 'application/json', ...auth },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as T & { error?: { code: string; message: string } };
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${json.error?.code}: ${json.error?.message}`);
  return json;
}

/** Streams a file to the API as application/octet-stream, reporting bytes sent. */
export async function uploadFile<T>(
  target: ApiTarget,
  method: string,
  path: string,
  file: string,
  onProgress?: (sent: number, total: number) => void,
): Promise<T> {
  const { size } = await stat(file);
  const url = new URL(target.url + path);
  return new Promise<T>((resolve, reject) => {
    const headers = {
      'content-type': 'application/octet-stream',
      'content-length': size,
      authorization: `Bearer ${target.token}`,
    };
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as T & {
          error?: { code: string; message: string };
        };
        if ((res.statusCode ?? 500) >= 300)
          reject(new Error(`${method} ${path}: ${res.statusCode} ${json.error?.code}: ${json.error?.message}`));
        else resolve(json);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    let sent = 0;
    const source = createReadStream(file, { highWaterMark: 1 << 20 });
    source.on('data', (chunk) => {
      sent += chunk.length;
      onProgress?.(sent, size);
    });
    source.on('error', reject);
    source.pipe(req);
  });
}

/**
 * The one way the console talks to Herald: JSON over fetch, and list uploads
 * over XMLHttpRequest (fetch cannot report upload progress). Every request
 * goes with the browser's session cookie, which page scripts cannot read
 * (docs/security.md, "Console sessions"), and the console's header, without
 * which the server refuses a cookie-authenticated change. Every failure becomes an ApiError that
 * carries the server's stable code and, when the server named one, the
 * field at fault, so forms can show the message next to that field.
 */
import { fieldOfSchemaMessage } from '../lib/schema-message';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The request field the server blamed (error.field or error.details.field), if any. */
    readonly field?: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Called when the server answers 401, with its error: the session ends and the sign-in page says why. */
let onUnauthenticated: (error: ApiError) => void = () => undefined;
export function setUnauthenticatedHandler(handler: (error: ApiError) => void): void {
  onUnauthenticated = handler;
}

/** Sent with every request: the server refuses a change made with the session cookie without it (the CSRF defence). */
const CONSOLE_HEADERS: Readonly<Record<string, string>> = { 'x-herald-console': '1' };

/** Builds an ApiError from an error answer, whichever of the documented shapes it has. */
export function toApiError(status: number, body: unknown): ApiError {
  const error = (body as { error?: Record<string, unknown> } | null)?.error;
  if (error === undefined || typeof error !== 'object')
    return new ApiError(status, status === 0 ? 'NETWORK' : 'HTTP_' + status, `the server answered ${status}`);
  const details = (typeof error.details === 'object' && error.details !== null ? error.details : {}) as Record<
    string,
    unknown
  >;
  const field =
    typeof error.field === 'string'
      ? error.field
      : typeof details.field === 'string'
        ? details.field
        : fieldOfSchemaMessage(String(error.message ?? ''));
  return new ApiError(status, String(error.code ?? 'HTTP_' + status), String(error.message ?? ''), field, {
    ...details,
    ...error,
  });
}

export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  signal?: AbortSignal,
  headers: Record<string, string> = {},
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: {
        ...CONSOLE_HEADERS,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'NETWORK', 'Herald did not answer: is the interface tier up?');
  }
  const text = await response.text();
  const parsed: unknown = text === '' ? null : safeJson(text);
  if (!response.ok) {
    const error = toApiError(response.status, parsed);
    if (response.status === 401) onUnauthenticated(error);
    throw error;
  }
  return parsed as T;
}

/**
 * Fetches a file the API streams and hands it to the browser as a download
 * named `filename`, so a refusal (401, 404) shows as an error on the page
 * instead of a broken download. The
 * browser holds the whole file until it is saved: for a report of millions
 * of rows, `curl` the route instead (docs/api.md).
 */
export async function download(path: string, filename: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(path, { credentials: 'same-origin', headers: CONSOLE_HEADERS });
  } catch {
    throw new ApiError(0, 'NETWORK', 'Herald did not answer: is the interface tier up?');
  }
  if (!response.ok) {
    const error = toApiError(response.status, safeJson(await response.text()));
    if (response.status === 401) onUnauthenticated(error);
    throw error;
  }
  const url = URL.createObjectURL(await response.blob());
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = filename;
    link.click();
  } finally {
    // After the click the browser has its own reference to the blob.
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export interface UploadHandle<T> {
  done: Promise<T>;
  abort: () => void;
}

/** Uploads a file as the request body (POST, or PUT to replace a blacklist), reporting bytes sent as they go. */
export function upload<T>(
  path: string,
  file: Blob,
  contentType: string,
  onProgress: (sent: number, total: number) => void,
  method: 'POST' | 'PUT' = 'POST',
): UploadHandle<T> {
  const xhr = new XMLHttpRequest();
  const done = new Promise<T>((resolve, reject) => {
    xhr.open(method, path);
    for (const [name, value] of Object.entries(CONSOLE_HEADERS)) xhr.setRequestHeader(name, value);
    xhr.setRequestHeader('content-type', contentType);
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size);
    xhr.onload = () => {
      const parsed = safeJson(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300) resolve(parsed as T);
      else {
        const error = toApiError(xhr.status, parsed);
        if (xhr.status === 401) onUnauthenticated(error);
        reject(error);
      }
    };
    xhr.onerror = () => reject(new ApiError(0, 'NETWORK', 'the upload was interrupted'));
    xhr.onabort = () => reject(new ApiError(0, 'ABORTED', 'upload cancelled'));
    xhr.send(file);
  });
  return { done, abort: () => xhr.abort() };
}

/** A query string from the defined, non-empty values. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text === '' ? '' : '?' + text;
}

/**
 * A fresh Idempotency-Key: 128 random bits in hex. getRandomValues, not
 * randomUUID, which only secure contexts (HTTPS, localhost) have.
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return 'console-' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ErrorCodes, type ErrorCode } from '@herald/core';
import type { ErrorCounter } from './api-metrics';
import type { ErrorBody } from './http-errors';

/** Node's codes for requests it refuses before any route runs, and what each answers. */
export const CLIENT_ERRORS: Readonly<Record<string, { status: number; code: ErrorCode; message: string }>> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: ErrorCodes.HEADERS_TOO_LARGE,
    message: "the request's headers are larger than the server accepts",
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    code: ErrorCodes.REQUEST_TIMEOUT,
    message: 'the request did not arrive whole in time',
  },
};
export const UNREADABLE = {
  status: 400,
  code: ErrorCodes.MALFORMED_REQUEST,
  message: 'the request is not readable HTTP',
};

/** The status and error body of a client error Node's HTTP parser raised. */
export function clientErrorAnswer(error: { code?: string }): { status: number; body: ErrorBody } {
  const { status, code, message } = (error.code === undefined ? undefined : CLIENT_ERRORS[error.code]) ?? UNREADABLE;
  return { status, body: { error: { code, message } } };
}

/**
 * Fastify's clientErrorHandler: the documented error body instead of
 * Fastify's own `{ error, message, statusCode }`, written straight to the
 * socket (there is no request or reply yet), then the connection closes as
 * Node's default does. A reset or closed socket gets nothing.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex, countError: ErrorCounter): void {
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, body } = clientErrorAnswer(error);
  countError(status, body);
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
}

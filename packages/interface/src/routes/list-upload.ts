import { NotFoundError, ValidationError } from '@herald/core';
import type { ImportTextListOptions, TextListReport } from '@herald/audience';
import type { ListMeta } from '@herald/core/task';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { rawBodyParser } from '../connections';

/**
 * What the list upload routes share (POST /api/v1/lists and the blacklists'
 * PUTs): the text grammar's query parameters, how a content type picks the
 * importer, and the refusals they give.
 */

export const ACCOUNT_ID = { type: 'string', pattern: '^[a-z0-9_]{1,64}$' } as const;

/** The query parameters of a text (text/plain, text/csv) upload. */
export interface TextUploadQuery {
  column?: string;
  header?: 'auto' | 'present' | 'absent';
  delimiter?: string;
  maxBadRatio?: number;
}

export const TEXT_PARAMS = ['column', 'header', 'delimiter', 'maxBadRatio'] as const;

export const TEXT_QUERY_PROPERTIES = {
  column: { type: 'string', minLength: 1, maxLength: 256 },
  header: { type: 'string', enum: ['auto', 'present', 'absent'] },
  delimiter: { type: 'string', enum: [',', ';', '|', 'tab'] },
  maxBadRatio: { type: 'number', minimum: 0, maximum: 1 },
} as const;

/** 'lines' for text/plain, 'csv' for text/csv, undefined for anything else (a binary list). */
export function textFormat(contentType: string | undefined): 'lines' | 'csv' | undefined {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'text/plain') return 'lines';
  if (type === 'text/csv') return 'csv';
  return undefined;
}

type TextOptionsFromQuery = Pick<ImportTextListOptions, 'column' | 'header' | 'delimiter' | 'maxBadRatio'>;

/** The query's text options: a column of digits is a number (1-based), anything else a header name. */
export function textOptions(query: TextUploadQuery): TextOptionsFromQuery {
  const options: TextOptionsFromQuery = {};
  if (query.column !== undefined) options.column = /^[0-9]+$/.test(query.column) ? Number(query.column) : query.column;
  if (query.header !== undefined) options.header = query.header;
  if (query.delimiter !== undefined) options.delimiter = query.delimiter === 'tab' ? '\t' : query.delimiter;
  if (query.maxBadRatio !== undefined) options.maxBadRatio = query.maxBadRatio;
  return options;
}

/** A binary upload names no text option: one that does is told which it sent in vain. */
export function refuseTextParams(query: TextUploadQuery): void {
  const textOnly = TEXT_PARAMS.filter((name) => query[name] !== undefined);
  if (textOnly.length > 0)
    throw new ValidationError(`${textOnly.join(', ')} apply only to text/plain and text/csv uploads`, {
      params: textOnly,
    });
}

/** What an operator gets for an account it may not see: the same for every such account, existing or not. */
export const accountMissing = (accountId: string) => () =>
  new NotFoundError('ACCOUNT_NOT_FOUND', `account ${accountId} not found`, { accountId });

export function streamOf(body: unknown): NodeJS.ReadableStream {
  if (body === undefined || body === null || typeof (body as NodeJS.ReadableStream).pipe !== 'function') {
    throw new ValidationError(
      'the body must be a recipient list: a binary file as application/octet-stream, or text/plain or text/csv',
    );
  }
  return body as NodeJS.ReadableStream;
}

export interface UploadedList {
  meta: ListMeta;
  /** A text upload's report: bytes of text sent and the lines counted (bad ones by reason). */
  import?: { uploadBytes: number } & TextListReport;
}

/**
 * Imports an upload as a new list of the account: a binary list as it is, a
 * text/plain or text/csv one converted with the query's text options. The
 * caller stores the metadata (and decides the list's final id).
 */
export async function importUpload(
  deps: Pick<ApiDeps, 'lists' | 'config'>,
  upload: { body: unknown; contentType: string | undefined; query: TextUploadQuery },
  accountId: string,
): Promise<UploadedList> {
  const limits = { accountId, uinLimit: deps.config.uinLimit, maxBytes: deps.config.http.uploadLimitBytes };
  const format = textFormat(upload.contentType);
  if (format === undefined) {
    refuseTextParams(upload.query);
    return { meta: await deps.lists.importStream(streamOf(upload.body), limits) };
  }
  const { meta, uploadBytes, report } = await deps.lists.importText(streamOf(upload.body), {
    ...limits,
    format,
    ...textOptions(upload.query),
  });
  return { meta, import: { uploadBytes, ...report } };
}

/**
 * Registers routes that read a text upload's raw request stream. Only inside
 * this scope: elsewhere text/plain keeps Fastify's parser.
 */
export function textUploadScope(
  app: FastifyInstance,
  deps: Pick<ApiDeps, 'config'>,
  routes: (scope: FastifyInstance) => void,
): void {
  void app.register(async (scope) => {
    scope.removeContentTypeParser('text/plain');
    scope.addContentTypeParser(
      ['text/plain', 'text/csv'],
      { bodyLimit: deps.config.http.uploadLimitBytes },
      rawBodyParser(deps.config.http.uploadLimitBytes),
    );
    routes(scope);
  });
}

import { rename } from 'node:fs/promises';
import { NotFoundError, ValidationError } from '@herald/core';
import type { ImportTextListOptions } from '@herald/audience';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { assertAdmin, assertCanSeeAccount, noteAudit } from '../access/request-access';
import { rawBodyParser } from '../connections';

const ACCOUNT_ID = { type: 'string', pattern: '^[a-z0-9_]{1,64}$' } as const;

interface ListQuery {
  accountId: string;
  column?: string;
  header?: 'auto' | 'present' | 'absent';
  delimiter?: string;
  maxBadRatio?: number;
}

const TEXT_PARAMS = ['column', 'header', 'delimiter', 'maxBadRatio'] as const;

const LIST_QUERY = {
  type: 'object',
  required: ['accountId'],
  properties: {
    accountId: ACCOUNT_ID,
    column: { type: 'string', minLength: 1, maxLength: 256 },
    header: { type: 'string', enum: ['auto', 'present', 'absent'] },
    delimiter: { type: 'string', enum: [',', ';', '|', 'tab'] },
    maxBadRatio: { type: 'number', minimum: 0, maximum: 1 },
  },
  additionalProperties: false,
} as const;

/** 'lines' for text/plain, 'csv' for text/csv, undefined for anything else (a binary list). */
function textFormat(contentType: string | undefined): 'lines' | 'csv' | undefined {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'text/plain') return 'lines';
  if (type === 'text/csv') return 'csv';
  return undefined;
}

/** The query's text options: a column of digits is a number (1-based), anything else a header name. */
function textOptions(query: ListQuery): ImportTextListOptionsFromQuery {
  const options: ImportTextListOptionsFromQuery = {};
  if (query.column !== undefined) options.column = /^[0-9]+$/.test(query.column) ? Number(query.column) : query.column;
  if (query.header !== undefined) options.header = query.header;
  if (query.delimiter !== undefined) options.delimiter = query.delimiter === 'tab' ? '\t' : query.delimiter;
  if (query.maxBadRatio !== undefined) options.maxBadRatio = query.maxBadRatio;
  return options;
}

/** What an operator gets for an account it may not see: the same for every such account, existing or not. */
const accountMissing = (accountId: string) => () =>
  new NotFoundError('ACCOUNT_NOT_FOUND', `account ${accountId} not found`, { accountId });

type ImportTextListOptionsFromQuery = Pick<ImportTextListOptions, 'column' | 'header' | 'delimiter' | 'maxBadRatio'>;

function streamOf(body: unknown): NodeJS.ReadableStream {
  if (body === undefined || body === null || typeof (body as NodeJS.ReadableStream).pipe !== 'function') {
    throw new ValidationError(
      'the body must be a recipient list: a binary file as application/octet-stream, or text/plain or text/csv',
    );
  }
  return body as NodeJS.ReadableStream;
}

/**
 * Recipient lists and blacklists: binary recipient-list files (docs/api.md),
 * streamed to disk and validated on the way; nothing is kept unless the whole
 * file is valid. `POST /api/v1/lists` also takes text/plain (one uin per
 * line) and text/csv, converted to a binary list as they stream in; bad lines
 * are counted by reason and past `maxBadRatio` reject the upload
 * (LIST_TOO_MANY_BAD_LINES).
 *
 * An operator uploads and reads only its accounts' lists and blacklists
 * (ACCOUNT_NOT_FOUND, LIST_NOT_FOUND for the others, before any byte of an
 * upload is read); the global blacklist is an admin's (403 FORBIDDEN).
 */
export function listRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const importBody = (body: unknown, accountId: string) =>
    deps.lists.importStream(streamOf(body), {
      accountId,
      uinLimit: deps.config.uinLimit,
      maxBytes: deps.config.http.uploadLimitBytes,
    });

  // Text lists get the raw request stream too, but only on this route: elsewhere text/plain keeps Fastify's parser.
  void app.register(async (scope) => {
    scope.removeContentTypeParser('text/plain');
    scope.addContentTypeParser(
      ['text/plain', 'text/csv'],
      { bodyLimit: deps.config.http.uploadLimitBytes },
      rawBodyParser(deps.config.http.uploadLimitBytes),
    );
    scope.post<{ Querystring: ListQuery }>(
      '/api/v1/lists',
      { schema: { querystring: LIST_QUERY } },
      async (request, reply) => {
        const { accountId } = request.query;
        assertCanSeeAccount(request, accountId, accountMissing(accountId));
        const format = textFormat(request.headers['content-type']);
        if (format === undefined) {
          const textOnly = TEXT_PARAMS.filter((name) => request.query[name] !== undefined);
          if (textOnly.length > 0)
            throw new ValidationError(`${textOnly.join(', ')} apply only to text/plain and text/csv uploads`, {
              params: textOnly,
            });
          const meta = await importBody(request.body, accountId);
          await deps.store.putList(meta);
          noteAudit(request, { resource: `list:${meta.id}` });
          return reply.code(201).send(meta);
        }
        const { meta, uploadBytes, report } = await deps.lists.importText(streamOf(request.body), {
          accountId,
          uinLimit: deps.config.uinLimit,
          maxBytes: deps.config.http.uploadLimitBytes,
          format,
          ...textOptions(request.query),
        });
        await deps.store.putList(meta);
        noteAudit(request, { resource: `list:${meta.id}` });
        return reply.code(201).send({ ...meta, import: { uploadBytes, ...report } });
      },
    );
  });

  app.get<{ Params: { id: string } }>('/api/v1/lists/:id', async (request) => {
    const missing = () =>
      new NotFoundError('LIST_NOT_FOUND', `recipient list ${request.params.id} does not exist`, {
        listId: request.params.id,
      });
    const meta = await deps.store.getList(request.params.id);
    if (meta === undefined) throw missing();
    assertCanSeeAccount(request, meta.accountId, missing);
    return meta;
  });

  const putBlacklist = async (body: unknown, accountId: string, targetId: string) => {
    const meta = await importBody(body, accountId);
    await rename(deps.lists.pathOf(meta.id), deps.lists.pathOf(targetId));
    const stored = { ...meta, id: targetId };
    await deps.store.putList(stored);
    return stored;
  };

  app.put('/api/v1/blacklists/global', async (request) => {
    assertAdmin(request);
    noteAudit(request, { resource: `list:${deps.blacklistIds.global}` });
    return putBlacklist(request.body, 'global', deps.blacklistIds.global);
  });

  app.put<{ Params: { accountId: string } }>(
    '/api/v1/accounts/:accountId/blacklist',
    { schema: { params: { type: 'object', required: ['accountId'], properties: { accountId: ACCOUNT_ID } } } },
    async (request) => {
      const { accountId } = request.params;
      assertCanSeeAccount(request, accountId, accountMissing(accountId));
      noteAudit(request, { resource: `list:${deps.blacklistIds.forAccount(accountId)}` });
      return putBlacklist(request.body, accountId, deps.blacklistIds.forAccount(accountId));
    },
  );
}

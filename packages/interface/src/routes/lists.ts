import { rename } from 'node:fs/promises';
import { NotFoundError, ValidationError } from '@herald/core';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../api-deps';

const ACCOUNT_ID = { type: 'string', pattern: '^[a-z0-9_]{1,64}$' } as const;

/**
 * Recipient lists and blacklists: binary recipient-list files (docs/api.md),
 * streamed to disk and validated on the way; nothing is kept unless the whole
 * file is valid.
 */
export function listRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const importBody = (body: unknown, accountId: string) => {
    if (body === undefined || body === null || typeof (body as NodeJS.ReadableStream).pipe !== 'function') {
      throw new ValidationError('the body must be a recipient-list file sent as application/octet-stream');
    }
    return deps.lists.importStream(body as NodeJS.ReadableStream, {
      accountId,
      uinLimit: deps.config.uinLimit,
      maxBytes: deps.config.http.uploadLimitBytes,
    });
  };

  app.post<{ Querystring: { accountId: string } }>(
    '/api/v1/lists',
    { schema: { querystring: { type: 'object', required: ['accountId'], properties: { accountId: ACCOUNT_ID }, additionalProperties: false } } },
    async (request, reply) => {
      const meta = await importBody(request.body, request.query.accountId);
      await deps.store.putList(meta);
      return reply.code(201).send(meta);
    },
  );

  app.get<{ Params: { id: string } }>('/api/v1/lists/:id', async (request) => {
    const meta = await deps.store.getList(request.params.id);
    if (meta === undefined) throw new NotFoundError('LIST_NOT_FOUND', `recipient list ${request.params.id} does not exist`, { listId: request.params.id });
    return meta;
  });

  const putBlacklist = async (body: unknown, accountId: string, targetId: string) => {
    const meta = await importBody(body, accountId);
    await rename(deps.lists.pathOf(meta.id), deps.lists.pathOf(targetId));
    const stored = { ...meta, id: targetId };
    await deps.store.putList(stored);
    return stored;
  };

  app.put('/api/v1/blacklists/global', async (request) => putBlacklist(request.body, 'global', deps.blacklistIds.global));

  app.put<{ Params: { accountId: string } }>(
    '/api/v1/accounts/:accountId/blacklist',
    { schema: { params: { type: 'object', required: ['accountId'], properties: { accountId: ACCOUNT_ID } } } },
    async (request) => putBlacklist(request.body, request.params.accountId, deps.blacklistIds.forAccount(request.params.accountId)),
  );
}

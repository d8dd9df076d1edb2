import { NotFoundError } from '@herald/core';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { assertCanSeeAccount, noteAudit } from '../access/request-access';
import {
  ACCOUNT_ID,
  accountMissing,
  importUpload,
  textUploadScope,
  TEXT_QUERY_PROPERTIES,
  type TextUploadQuery,
} from './list-upload';

interface ListQuery extends TextUploadQuery {
  accountId: string;
}

const LIST_QUERY = {
  type: 'object',
  required: ['accountId'],
  properties: { accountId: ACCOUNT_ID, ...TEXT_QUERY_PROPERTIES },
  additionalProperties: false,
} as const;

/**
 * Recipient lists: binary recipient-list files (docs/api.md), streamed to
 * disk and validated on the way; nothing is kept unless the whole file is
 * valid. `POST /api/v1/lists` also takes text/plain (one uin per line) and
 * text/csv, converted to a binary list as they stream in; bad lines are
 * counted by reason and past `maxBadRatio` reject the upload
 * (LIST_TOO_MANY_BAD_LINES). Blacklists are blacklists.ts.
 *
 * An operator uploads and reads only its accounts' lists (ACCOUNT_NOT_FOUND,
 * LIST_NOT_FOUND for the others, before any byte of an upload is read).
 */
export function listRoutes(app: FastifyInstance, deps: ApiDeps): void {
  textUploadScope(app, deps, (scope) => {
    scope.post<{ Querystring: ListQuery }>(
      '/api/v1/lists',
      { schema: { querystring: LIST_QUERY } },
      async (request, reply) => {
        const { accountId } = request.query;
        assertCanSeeAccount(request, accountId, accountMissing(accountId));
        const uploaded = await importUpload(
          deps,
          { body: request.body, contentType: request.headers['content-type'], query: request.query },
          accountId,
        );
        await deps.store.putList(uploaded.meta);
        noteAudit(request, { resource: `list:${uploaded.meta.id}` });
        return reply
          .code(201)
          .send(uploaded.import === undefined ? uploaded.meta : { ...uploaded.meta, import: uploaded.import });
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
}

import { rename } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { NotFoundError } from '@herald/core';
import { readRecipientList, readRecipientListHeader } from '@herald/audience';
import type { ListMeta } from '@herald/core/task';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { assertAdmin, assertCanSeeAccount, noteAudit } from '../access/request-access';
import {
  ACCOUNT_ID,
  accountMissing,
  importUpload,
  textUploadScope,
  TEXT_QUERY_PROPERTIES,
  type TextUploadQuery,
} from './list-upload';

/** What GET and DELETE answer: the blacklist's size and when it last changed. */
export interface BlacklistView {
  scope: 'global' | 'account';
  accountId: string | null;
  listId: string;
  /** Uins listed; 0 for a blacklist never set or cleared. */
  count: number;
  /** Size of the stored binary list; 0 when there is none. */
  bytes: number;
  /** CRC-32 of the stored list's body, null when there is none. */
  checksum: number | null;
  /** When it was last replaced or cleared (epoch ms), null when never. */
  updatedAt: number | null;
}

interface Target {
  scope: BlacklistView['scope'];
  accountId: string | null;
  listId: string;
  /** The ListMeta owner: 'global' for the global blacklist. */
  owner: string;
  filename: string;
}

const ACCOUNT_PARAMS = { type: 'object', required: ['accountId'], properties: { accountId: ACCOUNT_ID } } as const;
const PUT_QUERY = { type: 'object', additionalProperties: false, properties: TEXT_QUERY_PROPERTIES } as const;
const GET_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: { download: { type: 'boolean' } },
} as const;

/**
 * The download's text: a `uin` header, then one line a uin, a read batch
 * (at most 1 MiB of list) at a time. A download cut short closes the list
 * file: `rest` is returned however this generator ends.
 */
async function* csvLines(first: Uint32Array | undefined, rest: AsyncGenerator<Uint32Array>): AsyncGenerator<string> {
  try {
    yield 'uin\n';
    if (first === undefined) return;
    yield first.join('\n') + '\n';
    for await (const batch of { [Symbol.asyncIterator]: () => rest }) yield batch.join('\n') + '\n';
  } finally {
    await rest.return(undefined);
  }
}

/**
 * Blacklists (docs/api.md, "Blacklists"): the global one and one per account,
 * stored as recipient lists under fixed ids (the dispatcher reads the same
 * ids). Each can be replaced by an upload (binary, text or CSV, as
 * POST /api/v1/lists takes), read (its metadata, or with `?download=true`
 * its uins as CSV, streamed from the file), and cleared.
 *
 * The global blacklist is an admin's (403 FORBIDDEN); an operator reaches
 * only its accounts' (404 ACCOUNT_NOT_FOUND for the others, before any byte
 * of an upload is read).
 */
export function blacklistRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const globalTarget = (request: FastifyRequest): Target => {
    assertAdmin(request);
    const listId = deps.blacklistIds.global;
    return { scope: 'global', accountId: null, listId, owner: 'global', filename: 'blacklist-global.csv' };
  };
  const accountTarget = (request: FastifyRequest<{ Params: { accountId: string } }>): Target => {
    const { accountId } = request.params;
    assertCanSeeAccount(request, accountId, accountMissing(accountId));
    const listId = deps.blacklistIds.forAccount(accountId);
    return { scope: 'account', accountId, listId, owner: accountId, filename: `blacklist-${accountId}.csv` };
  };

  const view = async (target: Target): Promise<BlacklistView> => {
    const { scope, accountId, listId } = target;
    const meta = await deps.store.getList(listId);
    if (await deps.lists.exists(listId)) {
      if (meta !== undefined) {
        const { count, bytes, checksum, createdAt } = meta;
        return { scope, accountId, listId, count, bytes, checksum, updatedAt: createdAt };
      }
      // A file put there by hand: its header knows the count, nothing knows when.
      const header = await readRecipientListHeader(deps.lists.pathOf(listId));
      return { scope, accountId, listId, count: header.count, bytes: 0, checksum: header.bodyCrc, updatedAt: null };
    }
    const clearedAt = meta !== undefined && meta.count === 0 ? meta.createdAt : null;
    return { scope, accountId, listId, count: 0, bytes: 0, checksum: null, updatedAt: clearedAt };
  };

  const read = async (target: Target, download: boolean | undefined, reply: FastifyReply) => {
    if (download !== true) return reply.send(await view(target));
    const batches = readRecipientList(deps.lists.pathOf(target.listId), { uinLimit: deps.config.uinLimit });
    // The first batch before the headers: a file missing (never set, or cleared) is an empty download, not a broken one.
    let first: Uint32Array | undefined;
    try {
      first = (await batches.next()).value ?? undefined;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${target.filename}"`)
      .send(Readable.from(csvLines(first, batches)));
  };

  const replace = async (target: Target, request: FastifyRequest<{ Querystring: TextUploadQuery }>) => {
    noteAudit(request, { resource: `list:${target.listId}` });
    const uploaded = await importUpload(
      deps,
      { body: request.body, contentType: request.headers['content-type'], query: request.query },
      target.owner,
    );
    await rename(deps.lists.pathOf(uploaded.meta.id), deps.lists.pathOf(target.listId));
    const stored: ListMeta = { ...uploaded.meta, id: target.listId };
    await deps.store.putList(stored);
    return uploaded.import === undefined ? stored : { ...stored, import: uploaded.import };
  };

  const clear = async (target: Target, request: FastifyRequest) => {
    noteAudit(request, { resource: `list:${target.listId}` });
    await deps.lists.remove(target.listId);
    // An empty record, so the blacklist can say when it was cleared.
    const cleared: ListMeta = {
      id: target.listId,
      accountId: target.owner,
      count: 0,
      checksum: 0,
      sorted: true,
      unique: true,
      bytes: 0,
      createdAt: deps.clock.now(),
    };
    await deps.store.putList(cleared);
    return view(target);
  };

  textUploadScope(app, deps, (scope) => {
    scope.put<{ Querystring: TextUploadQuery }>(
      '/api/v1/blacklists/global',
      { schema: { querystring: PUT_QUERY } },
      async (request) => replace(globalTarget(request), request),
    );
    scope.put<{ Params: { accountId: string }; Querystring: TextUploadQuery }>(
      '/api/v1/accounts/:accountId/blacklist',
      { schema: { params: ACCOUNT_PARAMS, querystring: PUT_QUERY } },
      async (request) => replace(accountTarget(request), request),
    );
  });

  app.get<{ Querystring: { download?: boolean } }>(
    '/api/v1/blacklists/global',
    { schema: { querystring: GET_QUERY } },
    async (request, reply) => read(globalTarget(request), request.query.download, reply),
  );
  app.get<{ Params: { accountId: string }; Querystring: { download?: boolean } }>(
    '/api/v1/accounts/:accountId/blacklist',
    { schema: { params: ACCOUNT_PARAMS, querystring: GET_QUERY } },
    async (request, reply) => read(accountTarget(request), request.query.download, reply),
  );
  app.delete('/api/v1/blacklists/global', async (request) => clear(globalTarget(request), request));
  app.delete<{ Params: { accountId: string } }>(
    '/api/v1/accounts/:accountId/blacklist',
    { schema: { params: ACCOUNT_PARAMS } },
    async (request) => clear(accountTarget(request), request),
  );
}

import {
  AUDIT_QUERY_MAX_LIMIT,
  checkTokenName,
  checkTokenScope,
  ACCOUNT_ID_PATTERN,
  MAX_TOKEN_ACCOUNTS,
  TOKEN_ID_PATTERN,
  ROLES,
  type Role,
} from '@herald/core/access';
import { ValidationError } from '@herald/core';
import { parseOptionalDateTime } from '@herald/core/time';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { assertAdmin, noteAudit, principalOf } from '../access/request-access';
import { newTokenText } from '../access/token-crypto';
import type { TokenVerifier } from '../access/verifier';
import { DATE_TIME_FIELD } from './date-field';
import { keysetPage, PAGE_QUERY_PROPERTIES } from './keyset-page';

interface CreateTokenBody {
  name: string;
  role: Role;
  accounts?: string[];
}

const TOKEN_ID = { type: 'string', pattern: TOKEN_ID_PATTERN.source } as const;

/**
 * Tokens, the caller itself, and the audit log (docs/api.md,
 * "Authentication"). Tokens and audit are admin-only (403 FORBIDDEN for an
 * operator: they hold no account's data, so saying they exist leaks
 * nothing); GET /api/v1/me answers any verified caller.
 */
export function accessRoutes(app: FastifyInstance, deps: ApiDeps, verifier: TokenVerifier): void {
  const { access, clock } = deps;

  app.get('/api/v1/me', async (request) => {
    const { tokenId, name, role, accounts } = principalOf(request);
    return { tokenId, name, role, accounts };
  });

  app.post<{ Body: CreateTokenBody }>(
    '/api/v1/tokens',
    {
      schema: {
        body: {
          type: 'object',
          required: ['name', 'role'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 64 },
            role: { type: 'string', enum: [...ROLES] },
            accounts: {
              type: 'array',
              maxItems: MAX_TOKEN_ACCOUNTS,
              items: { type: 'string', pattern: ACCOUNT_ID_PATTERN.source },
            },
          },
        },
      },
    },
    async (request, reply) => {
      assertAdmin(request);
      const name = checkTokenName(request.body.name);
      const { role, accounts } = checkTokenScope(request.body.role, request.body.accounts ?? []);
      const text = newTokenText();
      const token = await access.createToken({
        id: text.tokenId,
        name,
        role,
        accounts,
        hash: text.hash,
        createdAt: clock.now(),
      });
      noteAudit(request, { resource: `token:${token.id}` });
      // The only time the secret is shown: the store keeps its hash.
      return reply.code(201).send({ ...token, token: text.token });
    },
  );

  app.get<{ Querystring: { cursor?: string; limit?: number } }>(
    '/api/v1/tokens',
    { schema: { querystring: { type: 'object', additionalProperties: false, properties: PAGE_QUERY_PROPERTIES } } },
    async (request) => {
      assertAdmin(request);
      // Oldest first, as the store lists them; a page at a time (`nextCursor`).
      const { items, nextCursor } = keysetPage(
        await access.listTokens(),
        'asc',
        request.query.cursor,
        request.query.limit,
      );
      return { tokens: items, nextCursor };
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/api/v1/tokens/:id',
    {
      schema: {
        params: { type: 'object', required: ['id'], additionalProperties: false, properties: { id: TOKEN_ID } },
      },
    },
    async (request) => {
      noteAudit(request, { resource: `token:${request.params.id}` });
      assertAdmin(request);
      const token = await access.revokeToken(request.params.id, clock.now());
      // This process stops trusting it at once; others within auth.tokenCacheMs.
      verifier.forget(token.id);
      return token;
    },
  );

  app.get<{
    Querystring: { tokenId?: string; accountId?: string; from?: string; to?: string; cursor?: number; limit?: number };
  }>(
    '/api/v1/audit',
    {
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            tokenId: TOKEN_ID,
            accountId: { type: 'string', minLength: 1, maxLength: 255 },
            from: DATE_TIME_FIELD,
            to: DATE_TIME_FIELD,
            cursor: { type: 'integer', minimum: 1 },
            limit: { type: 'integer', minimum: 1, maximum: AUDIT_QUERY_MAX_LIMIT },
          },
        },
      },
    },
    async (request) => {
      assertAdmin(request);
      const { tokenId, accountId, cursor, limit } = request.query;
      const from = parseOptionalDateTime(request.query.from, 'from');
      const to = parseOptionalDateTime(request.query.to, 'to');
      if (from !== undefined && to !== undefined && from > to)
        throw new ValidationError('from must not be after to', { field: 'from' });
      return access.listAudit({ tokenId, accountId, from, to, before: cursor, limit });
    },
  );
}

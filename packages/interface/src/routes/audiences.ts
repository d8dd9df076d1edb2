import { targetingSource } from '@herald/audience';
import { checkTableSourceSpec, MAX_TABLE_CONDITIONS, type FollowChange } from '@herald/core/audience';
import { MAX_QUERY_CHARS, parseTargetingQuery, type UserAttributes } from '@herald/core/targeting';
import { MAX_USERS_PER_PUT, type AudienceSource } from '@herald/core/ports';
import { NotFoundError, ValidationError } from '@herald/core';
import type { ListMeta } from '@herald/core/task';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { assertAdmin, assertCanSeeAccount, noteAudit, visibleAccounts } from '../access/request-access';
import { AudienceJobs, JOB_STATES, jobNotFound, type AudienceSourceDeps, type JobState } from '../audience-jobs';
import { keysetPage, PAGE_QUERY_PROPERTIES } from './keyset-page';

const ACCOUNT_ID = { type: 'string', pattern: '^[a-z0-9_]{1,64}$' } as const;

interface CreateAudienceBody {
  accountId: string;
  source: {
    kind: 'followers' | 'targeting' | 'table';
    query?: string;
    table?: string;
    column?: string;
    where?: unknown[];
  };
  maxBadRatio?: number;
}

const CREATE_BODY = {
  type: 'object',
  required: ['accountId', 'source'],
  additionalProperties: false,
  properties: {
    accountId: ACCOUNT_ID,
    maxBadRatio: { type: 'number', minimum: 0, maximum: 1 },
    source: {
      type: 'object',
      required: ['kind'],
      additionalProperties: false,
      properties: {
        kind: { type: 'string', enum: ['followers', 'targeting', 'table'] },
        query: { type: 'string', maxLength: MAX_QUERY_CHARS },
        table: { type: 'string', minLength: 1, maxLength: 129 },
        column: { type: 'string', minLength: 1, maxLength: 64 },
        where: { type: 'array', maxItems: MAX_TABLE_CONDITIONS, items: { type: 'object' } },
      },
    },
  },
} as const;

const JOB_PARAMS = {
  type: 'object',
  required: ['id'],
  additionalProperties: false,
  properties: { id: { type: 'string', minLength: 1, maxLength: 100 } },
} as const;
const LIST_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: { accountId: ACCOUNT_ID, state: { type: 'string', enum: [...JOB_STATES] }, ...PAGE_QUERY_PROPERTIES },
} as const;
const QUERY_CHECK_BODY = {
  type: 'object',
  required: ['query'],
  additionalProperties: false,
  properties: { query: { type: 'string', maxLength: MAX_QUERY_CHARS } },
} as const;
// A change's fields are judged by core's checkFollowChange; the schema only refuses a field it does not know.
const FOLLOW_CHANGE = {
  type: 'object',
  additionalProperties: false,
  properties: { accountId: {}, uin: {}, following: {}, at: {} },
} as const;
const FOLLOWS_BODY = {
  type: 'object',
  required: ['changes'],
  additionalProperties: false,
  properties: { changes: { type: 'array', minItems: 1, maxItems: MAX_USERS_PER_PUT, items: FOLLOW_CHANGE } },
} as const;
const USERS_BODY = {
  type: 'object',
  required: ['users'],
  additionalProperties: false,
  properties: { users: { type: 'array', minItems: 1, maxItems: MAX_USERS_PER_PUT, items: { type: 'object' } } },
} as const;
const UIN_PARAMS = {
  type: 'object',
  required: ['uin'],
  additionalProperties: false,
  properties: { uin: { type: 'integer', minimum: 0, maximum: 2 ** 32 - 1 } },
} as const;
/** 10,000 follow changes or users as JSON: well over the API's usual 1 MiB. */
const BULK_BODY_LIMIT = 16 << 20;

/** What an operator gets for an account it may not see: the same for every such account, existing or not. */
const accountMissing = (accountId: string) => () =>
  new NotFoundError('ACCOUNT_NOT_FOUND', `account ${accountId} not found`, { accountId });

function unavailable(kind: string): ValidationError {
  return new ValidationError(`this deployment has no '${kind}' audience source`, { field: 'source.kind', kind });
}

/** Fields a kind does not take are refused by name, so a typo is never silently ignored. */
function onlyFields(source: CreateAudienceBody['source'], allowed: readonly string[]): void {
  for (const field of ['query', 'table', 'column', 'where'] as const) {
    if (source[field] !== undefined && !allowed.includes(field))
      throw new ValidationError(`source.${field} does not apply to a '${source.kind}' source`, {
        field: `source.${field}`,
      });
  }
}

/**
 * Audiences (docs/api.md, "Audiences"; docs/audience-sources.md): lists built
 * from a source instead of an upload, as jobs with progress.
 *
 * - POST /api/v1/audiences `{ accountId, source, maxBadRatio? }` starts a
 *   job (202, Location: the job): source `{ kind: 'followers' }` (the
 *   account's followers), `{ kind: 'targeting', query }` (users whose
 *   attributes match) or, for admins only, `{ kind: 'table', table, column,
 *   where? }`. A malformed query (QUERY_INVALID, with its position) or table
 *   description is refused at once, before any job exists.
 * - GET /api/v1/audiences/:id: the job, its progress while it runs, its list
 *   when done, its error when failed. GET /api/v1/audiences lists them.
 * - DELETE /api/v1/audiences/:id cancels a running job (nothing is kept).
 * - GET /api/v1/audiences/check-query?query= (or POST with a body): parses
 *   a query without running it.
 * - Admin feeds for the embedded profile and tests: POST /api/v1/follows
 *   (follow/unfollow changes, applied like the herald.follows topic's),
 *   POST /api/v1/user-attributes (users' attributes for targeting),
 *   GET and DELETE /api/v1/user-attributes/:uin.
 *
 * An operator reaches only its accounts' jobs (another account's answers
 * exactly like a missing one).
 */
export function audienceRoutes(app: FastifyInstance, deps: ApiDeps & { audiences: AudienceSourceDeps }): void {
  const sources = deps.audiences;
  const jobs = new AudienceJobs({
    lists: deps.lists,
    store: deps.store,
    clock: deps.clock,
    logger: deps.logger,
    config: deps.config.audiences,
    uinLimit: deps.config.uinLimit,
  });
  app.addHook('onClose', () => jobs.close());
  const pageSize = deps.config.audiences.pageSize;

  const copyThreshold = deps.config.audiences.followerCopyThreshold;
  /** A followers source: the account's local copy when it has one; a big read from the source leaves one. */
  const followersOf = async (
    accountId: string,
  ): Promise<{ source: AudienceSource; afterDone?: (meta: ListMeta) => Promise<void> }> => {
    if (sources.followers === undefined) throw unavailable('followers');
    const copies = sources.followerCopies;
    if (copies === undefined || copyThreshold === 0)
      return { source: sources.followers.followers(accountId, { batchSize: pageSize }) };
    const hasCopy = await copies.has(accountId);
    const source = hasCopy
      ? copies.source(accountId, sources.followers, { batchSize: pageSize })
      : sources.followers.followers(accountId, { batchSize: pageSize });
    // A list read from the source of truth (no copy yet, or the copy failed its samples) becomes the new copy.
    const afterDone = async (meta: ListMeta) => {
      if (meta.count >= copyThreshold && (!hasCopy || copies.lastVerdict(accountId)?.at === 'source'))
        await copies.install(accountId, deps.lists.pathOf(meta.id));
    };
    return { source, afterDone };
  };

  const sourceOf = async (
    body: CreateAudienceBody,
    request: Parameters<typeof assertAdmin>[0],
  ): Promise<{ source: AudienceSource; afterDone?: (meta: ListMeta) => Promise<void> }> => {
    const { source } = body;
    switch (source.kind) {
      case 'followers':
        onlyFields(source, []);
        return followersOf(body.accountId);
      case 'targeting':
        onlyFields(source, ['query']);
        if (source.query === undefined)
          throw new ValidationError('a targeting source needs source.query', { field: 'source.query' });
        if (sources.attributes === undefined) throw unavailable('targeting');
        return {
          source: targetingSource(sources.attributes, source.query, { clock: deps.clock, batchSize: pageSize }),
        };
      case 'table': {
        assertAdmin(request);
        onlyFields(source, ['table', 'column', 'where']);
        if (sources.tables === undefined) throw unavailable('table');
        const { kind: _kind, ...spec } = source;
        let checked;
        try {
          checked = checkTableSourceSpec(spec);
        } catch (error) {
          // Name the field as the body has it.
          if (error instanceof ValidationError && typeof error.details.field === 'string')
            throw new ValidationError(error.message, { ...error.details, field: `source.${error.details.field}` });
          throw error;
        }
        return { source: sources.tables.source(checked, { batchSize: pageSize }) };
      }
    }
  };

  app.post<{ Body: CreateAudienceBody }>(
    '/api/v1/audiences',
    { schema: { body: CREATE_BODY } },
    async (request, reply) => {
      const { accountId } = request.body;
      assertCanSeeAccount(request, accountId, accountMissing(accountId));
      const { source, afterDone } = await sourceOf(request.body, request);
      const job = jobs.start(accountId, source, request.body.maxBadRatio, afterDone);
      noteAudit(request, { resource: `audience:${job.id}` });
      return reply.code(202).header('location', `/api/v1/audiences/${job.id}`).send(job);
    },
  );

  // A check changes nothing, so GET is its natural form (and a GET is not audited: a console
  // checking as the user types must not fill the audit log). POST takes the query as a body.
  app.get<{ Querystring: { query: string } }>(
    '/api/v1/audiences/check-query',
    { schema: { querystring: QUERY_CHECK_BODY } },
    async (request) => {
      parseTargetingQuery(request.query.query);
      return { valid: true };
    },
  );

  app.post<{ Body: { query: string } }>(
    '/api/v1/audiences/check-query',
    { schema: { body: QUERY_CHECK_BODY } },
    async (request) => {
      parseTargetingQuery(request.body.query);
      return { valid: true };
    },
  );

  app.get<{ Querystring: { accountId?: string; state?: JobState; cursor?: string; limit?: number } }>(
    '/api/v1/audiences',
    { schema: { querystring: LIST_QUERY } },
    async (request) => {
      const { accountId, state, cursor, limit } = request.query;
      const visible = visibleAccounts(request);
      // An operator naming another account sees an empty list, as if it had no jobs. Newest first, a page at a time.
      const all = jobs.list(visible, {
        ...(accountId === undefined ? {} : { accountId }),
        ...(state === undefined ? {} : { state }),
      });
      const { items, nextCursor } = keysetPage(all, 'desc', cursor, limit);
      return { jobs: items, nextCursor };
    },
  );

  app.get<{ Params: { id: string } }>('/api/v1/audiences/:id', { schema: { params: JOB_PARAMS } }, async (request) => {
    const job = jobs.get(request.params.id);
    assertCanSeeAccount(request, job.accountId, () => jobNotFound(request.params.id));
    return job;
  });

  app.delete<{ Params: { id: string } }>(
    '/api/v1/audiences/:id',
    { schema: { params: JOB_PARAMS } },
    async (request) => {
      const job = jobs.get(request.params.id);
      assertCanSeeAccount(request, job.accountId, () => jobNotFound(request.params.id));
      noteAudit(request, { resource: `audience:${job.id}` });
      return jobs.cancel(job.id);
    },
  );

  app.post<{ Body: { changes: FollowChange[] } }>(
    '/api/v1/follows',
    { bodyLimit: BULK_BODY_LIMIT, schema: { body: FOLLOWS_BODY } },
    async (request) => {
      assertAdmin(request);
      if (sources.followers === undefined) throw unavailable('followers');
      noteAudit(request, { resource: 'follows' });
      const result = await sources.followers.applyFollows(request.body.changes);
      // The local copies hear every change too (only those of accounts with a copy are kept).
      await sources.followerCopies?.applyFollows(request.body.changes);
      return result;
    },
  );

  app.post<{ Body: { users: UserAttributes[] } }>(
    '/api/v1/user-attributes',
    { bodyLimit: BULK_BODY_LIMIT, schema: { body: USERS_BODY } },
    async (request) => {
      assertAdmin(request);
      if (sources.attributes === undefined) throw unavailable('targeting');
      noteAudit(request, { resource: 'user-attributes' });
      await sources.attributes.putUsers(request.body.users);
      return { stored: new Set(request.body.users.map((user) => user.uin)).size };
    },
  );

  app.get<{ Params: { uin: number } }>(
    '/api/v1/user-attributes/:uin',
    { schema: { params: UIN_PARAMS } },
    async (request) => {
      assertAdmin(request);
      if (sources.attributes === undefined) throw unavailable('targeting');
      const user = await sources.attributes.getUser(request.params.uin);
      if (user === undefined)
        throw new NotFoundError('NOT_FOUND', `user ${request.params.uin} has no attributes`, {
          uin: request.params.uin,
        });
      return user;
    },
  );

  app.delete<{ Params: { uin: number } }>(
    '/api/v1/user-attributes/:uin',
    { schema: { params: UIN_PARAMS } },
    async (request, reply) => {
      assertAdmin(request);
      if (sources.attributes === undefined) throw unavailable('targeting');
      noteAudit(request, { resource: `user-attributes:${request.params.uin}` });
      await sources.attributes.removeUsers([request.params.uin]);
      return reply.code(204).send();
    },
  );
}

import { accountConfirmation, assertConfirmed, needsConfirmation } from '@herald/core/account-quota';
import {
  checkCollapseKey,
  checkTaskTargeting,
  contentCrc,
  MAX_TASK_SPEED,
  TASK_STATES,
  taskMachine,
  type PriorityClass,
  type TaskState,
} from '@herald/core/task';
import { NotFoundError, IllegalTransitionError, ValidationError } from '@herald/core';
import {
  checkWindowWithinLifetime,
  parseDateTime,
  parseDeliverAt,
  parseOptionalDateTime,
  parseQuietHours,
  parseSendAt,
} from '@herald/core/time';
import type { TaskCommandName } from '@herald/transport';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { assertCanSeeAccount, noteAudit, visibleAccounts } from '../access/request-access';
import { checkQuota, holdQuota } from './account-quota';
import { DATE_TIME_FIELD } from './date-field';
import { SEARCH_FIELD } from './search-field';
import { dryRunAnswer } from './task-dry-run';
import { progressAnswer } from './task-progress';
import { apiIdempotencyKey, assertSameRequest } from './idempotency';
import { contentOfRequest, type RequestContent } from './request-content';
import { rolloutOfRequest } from './task-rollout';
import { withAccountDefaults } from './account-local-time';
import { visibleTask } from './visible-task';

interface CreateTaskBody {
  accountId: string;
  listId: string;
  content: RequestContent;
  priority?: PriorityClass;
  sendAt?: string;
  displayAt?: string;
  ttlSeconds?: number;
  speed?: number;
  targeting?: string;
  collapseKey?: string;
  variants?: unknown;
  holdout?: unknown;
  canary?: unknown;
  deliverAt?: unknown;
  quietHours?: unknown;
  confirm?: number;
}

const createTaskSchema = {
  type: 'object',
  required: ['accountId', 'listId', 'content'],
  additionalProperties: false,
  properties: {
    accountId: { type: 'string', pattern: '^[a-z0-9_]{1,64}$' },
    listId: { type: 'string', minLength: 1, maxLength: 128 },
    content: {
      type: 'object',
      required: ['body'],
      additionalProperties: false,
      properties: {
        body: { type: 'string', minLength: 1 },
        title: { type: 'string', maxLength: 256 },
        template: { type: 'boolean' },
      },
    },
    priority: { type: 'string', enum: ['realtime', 'normal'] },
    sendAt: DATE_TIME_FIELD,
    displayAt: DATE_TIME_FIELD,
    ttlSeconds: { type: 'integer', minimum: 1 },
    // Recipients per second; at most the account's maxSpeed (docs/account-quotas.md "Speed").
    speed: { type: 'integer', minimum: 1, maximum: MAX_TASK_SPEED },
    // A targeted task's query (docs/audience-sources.md "Targeted tasks"): the parser judges it, with a position.
    targeting: { type: 'string' },
    // Superseding messages (docs/delivery.md "Collapse keys"): core's check names the field and says what is allowed.
    collapseKey: { type: 'string' },
    // A/B variants and their holdout (docs/rollouts.md): core's parser checks the shape and names the field.
    variants: {
      description:
        'A/B: 2..8 { name, share, content } over disjoint shares of the audience; shares in (0, 1) adding up to 1 - holdout',
    },
    holdout: { description: 'A/B: the share in [0, 1) that gets nothing (removed as held_out); only with variants' },
    canary: {
      description:
        'a canary: { sample: "1%" | count, holdSeconds, thresholds: { rejectedRatio, failedRatio } } (docs/rollouts.md)',
    },
    // Local-time delivery (docs/local-time.md): core's parser names the inner field at fault, unknown ones included.
    deliverAt: { type: 'object' },
    // Quiet hours in each recipient's local time, 'HH:MM-HH:MM' or { hours, during } (docs/local-time.md "Quiet hours"):
    // core's parser names the inner field at fault, unknown ones included.
    quietHours: { description: "'HH:MM-HH:MM' or { hours: 'HH:MM-HH:MM', during: 'hold' | 'offline' }" },
    // The recipient count a broadcast that reaches many soon must repeat (docs/account-quotas.md, "Confirmation").
    confirm: { type: 'integer', minimum: 0 },
  },
} as const;

/** `?dryRun=true`: validate and describe, create nothing (docs/api.md, "Dry run"). A query string carries the boolean as text. */
const createTaskQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { dryRun: { type: 'string', enum: ['true', 'false'] } },
} as const;

/**
 * Creating, reading, listing and steering broadcast tasks. An operator sees
 * only its accounts' tasks: another account's task answers exactly like a
 * missing one (TASK_NOT_FOUND), a task for another account like a missing
 * list (LIST_NOT_FOUND), and listings leave other accounts out.
 */
export function taskRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const { config, store, clock } = deps;

  app.post<{ Body: CreateTaskBody; Querystring: { dryRun?: 'true' | 'false' } }>(
    '/api/v1/tasks',
    { schema: { body: createTaskSchema, querystring: createTaskQuery } },
    async (request, reply) => {
      const body = request.body;
      const dryRun = request.query.dryRun === 'true';
      const listMissing = () =>
        new NotFoundError(
          'LIST_NOT_FOUND',
          `recipient list ${body.listId} does not exist for account ${body.accountId}`,
          { field: 'listId' },
        );
      assertCanSeeAccount(request, body.accountId, listMissing);
      if (body.content.body.length > config.tasks.maxContentChars) {
        throw new ValidationError(`content.body is longer than ${config.tasks.maxContentChars} characters`, {
          field: 'content.body',
        });
      }
      const content = contentOfRequest(body.content);
      // A malformed query is refused here, before any quota is held: 400 QUERY_INVALID naming `targeting`.
      if (body.targeting !== undefined) checkTaskTargeting(body.targeting);
      // Scoped to the account by construction: the key a task carries only ever meets its own account's tasks.
      if (body.collapseKey !== undefined) checkCollapseKey(body.collapseKey);
      const rollout = rolloutOfRequest(body);
      const asked = {
        deliverAt: body.deliverAt === undefined ? undefined : parseDeliverAt(body.deliverAt),
        quietHours: body.quietHours === undefined ? undefined : parseQuietHours(body.quietHours),
      };
      const now = clock.now();
      // The undo window: a task to start now waits tasks.undoGraceMs in SCHEDULED, where a cancel stops it with nothing sent.
      // A past sendAt (beyond clock skew) is refused, not sent at once: omit it to send now.
      const sendAt =
        body.sendAt === undefined
          ? now + config.tasks.undoGraceMs
          : parseSendAt(body.sendAt, 'sendAt', now, config.tasks.maxScheduleAheadMs);
      const ttlMs = body.ttlSeconds === undefined ? config.tasks.defaultTtlMs : body.ttlSeconds * 1000;
      if (ttlMs > config.tasks.maxTtlMs)
        throw new ValidationError(`ttlSeconds exceeds the maximum of ${config.tasks.maxTtlMs / 1000}`, {
          field: 'ttlSeconds',
          maximum: config.tasks.maxTtlMs / 1000,
        });
      if (asked.deliverAt !== undefined) checkWindowWithinLifetime(asked.deliverAt, sendAt, sendAt + ttlMs);
      const idempotencyKey = apiIdempotencyKey(request.headers['idempotency-key'], body.accountId);
      // A dry run creates nothing, so it has no earlier task to answer with either.
      if (idempotencyKey !== undefined && !dryRun) {
        // A retry of a request that already created its task: that task, 200 instead of 201.
        const existing = await store.getTaskByIdempotencyKey(idempotencyKey);
        if (existing !== undefined) {
          assertSameRequest(existing, { ...body, ...(rollout === undefined ? {} : { rollout }) });
          noteAudit(request, { resource: `task:${existing.id}` });
          return reply.code(200).send(existing);
        }
      }
      const list = await store.getList(body.listId);
      // A blacklist is a list of the ids never to send to, not an audience: not even an admin broadcasts to one.
      const isBlacklist =
        list !== undefined &&
        (list.id === deps.blacklistIds.global || list.id === deps.blacklistIds.forAccount(body.accountId));
      if (list === undefined || list.accountId !== body.accountId || isBlacklist) throw listMissing();
      const startAt = Math.max(now, sendAt);
      const displayAt = parseDisplayAt(body.displayAt, startAt, startAt + ttlMs);
      const reach = { recipients: list.count, startAt, now };
      const confirmation = await accountConfirmation(deps.accounts, config.accounts, body.accountId);
      const broadcast = {
        accountId: body.accountId,
        idempotencyKey,
        sendAt: startAt,
        recipients: list.count,
        speed: body.speed,
      };
      if (dryRun) {
        // The quotas as a create would find them, nothing held; the confirmation rule reported, not enforced.
        await checkQuota(deps, broadcast, now);
        const answer = await dryRunAnswer(deps, {
          accountId: body.accountId,
          list,
          contentCrc: contentCrc(content),
          targeting: body.targeting,
          sendAt: startAt,
          expiresAt: startAt + ttlMs,
          speed: body.speed,
        });
        return reply.code(200).send({ ...answer, confirmationRequired: needsConfirmation(confirmation, reach) });
      }
      // Guard rails proportional to reach: 409 CONFIRMATION_REQUIRED before anything is held or created.
      assertConfirmed(confirmation, reach, body.confirm);
      // B-side controls: the broadcast takes its room in the account's quotas, or 422 ACCOUNT_QUOTA_EXCEEDED with nothing created.
      // A speed over the account's maxSpeed is refused there too (docs/account-quotas.md "Speed").
      const quota = await holdQuota(deps, broadcast, now);
      const task = await store
        .createTask(
          {
            accountId: body.accountId,
            listId: list.id,
            content,
            contentCrc: contentCrc(content),
            priority: body.priority ?? 'normal',
            sendAt: startAt,
            expiresAt: startAt + ttlMs,
            listCount: list.count,
            ...(displayAt === undefined ? {} : { displayAt }),
            ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
            ...(body.speed === undefined ? {} : { speed: body.speed }),
            ...(body.targeting === undefined ? {} : { targeting: body.targeting }),
            ...(body.collapseKey === undefined ? {} : { collapseKey: body.collapseKey }),
            ...(rollout === undefined ? {} : { rollout }),
            // The account's local-time defaults fill what the request left out (docs/local-time.md).
            ...withAccountDefaults(
              asked.deliverAt,
              (body.deliverAt as { defaultTimeZone?: unknown } | undefined)?.defaultTimeZone !== undefined,
              asked.quietHours,
              (await deps.accounts?.getSettings(body.accountId))?.localTime,
            ),
          },
          now,
        )
        .catch(async (error: unknown) => {
          await quota.release();
          throw error;
        });
      // A concurrent request with the same key may have created it first: the store answers that task.
      if (idempotencyKey !== undefined)
        assertSameRequest(task, { ...body, ...(rollout === undefined ? {} : { rollout }) });
      noteAudit(request, { resource: `task:${task.id}` });
      // Persisted first, then handed over: if the hand-over is lost, scheduler recovery still finds the task.
      await deps.toScheduler.send({ kind: 'task.submitted', taskId: task.id });
      return reply.code(201).send(task);
    },
  );

  app.get<{ Params: { id: string } }>('/api/v1/tasks/:id', async (request) =>
    visibleTask(request, store, request.params.id),
  );

  // The curve its owning scheduler recorded, the current rate and an ETA; same access as the task (docs/api.md, GET /api/v1/tasks/:id/progress).
  app.get<{ Params: { id: string } }>('/api/v1/tasks/:id/progress', async (request) => {
    const task = await visibleTask(request, store, request.params.id);
    return progressAnswer(task, await store.getProgress(task.id), clock.now());
  });

  app.get<{
    Querystring: {
      state?: TaskState;
      accountId?: string;
      order?: 'asc' | 'desc';
      createdFrom?: string;
      createdBefore?: string;
      q?: string;
      cursor?: number;
      limit?: number;
    };
  }>(
    '/api/v1/tasks',
    {
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            state: { type: 'string', enum: [...TASK_STATES] },
            accountId: { type: 'string', pattern: '^[a-z0-9_]{1,64}$' },
            order: { type: 'string', enum: ['asc', 'desc'] },
            createdFrom: DATE_TIME_FIELD,
            createdBefore: DATE_TIME_FIELD,
            q: SEARCH_FIELD,
            cursor: { type: 'integer', minimum: 0 },
            limit: { type: 'integer', minimum: 1, maximum: 1000 },
          },
        },
      },
    },
    async (request) => {
      const { state, accountId, order, q, cursor, limit } = request.query;
      // Newest first pages downwards: the cursor is then the id to go below.
      const page = {
        state,
        q,
        limit,
        ...(order === 'desc' ? { order, beforeId: cursor } : { afterId: cursor }),
        createdFrom: parseOptionalDateTime(request.query.createdFrom, 'createdFrom'),
        createdBefore: parseOptionalDateTime(request.query.createdBefore, 'createdBefore'),
      };
      const visible = visibleAccounts(request);
      if (visible === 'all') return store.listTasks({ ...page, accountId });
      // Another account's tasks are not there for an operator: the same empty page as an account without tasks.
      if (accountId !== undefined && !visible.includes(accountId)) return { tasks: [], nextCursor: null };
      return store.listTasks({ ...page, ...(accountId === undefined ? { accountIds: visible } : { accountId }) });
    },
  );

  for (const command of ['cancel', 'pause', 'resume'] as const satisfies readonly TaskCommandName[]) {
    app.post<{ Params: { id: string } }>(`/api/v1/tasks/:id/${command}`, async (request, reply) => {
      const task = await visibleTask(request, store, request.params.id);
      const id = task.id;
      if (!taskMachine.can(task.state, command)) throw new IllegalTransitionError('task', task.state, command);
      await deps.toScheduler.send({ kind: 'task.command', taskId: id, command });
      return reply.code(202).send({ taskId: id, command, accepted: true });
    });
  }
}

/**
 * Pre-delivery's display time: after the send time (else there is nothing to
 * deliver ahead of) and before the task expires (else users queued offline
 * would never see it on time).
 */
function parseDisplayAt(raw: string | undefined, sendAt: number, expiresAt: number): number | undefined {
  if (raw === undefined) return undefined;
  const displayAt = parseDateTime(raw, 'displayAt');
  if (displayAt < sendAt)
    throw new ValidationError('displayAt must not be before the send time', { field: 'displayAt' });
  if (displayAt >= expiresAt)
    throw new ValidationError('displayAt must be before the task expires (sendAt + ttlSeconds)', {
      field: 'displayAt',
    });
  return displayAt;
}

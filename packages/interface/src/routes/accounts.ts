import {
  CONFIRMATION_LIMIT_MAX,
  describeAccountLimits,
  LIMIT_MAX,
  type AccountLimitsOverride,
} from '@herald/core/account-quota';
import { NotFoundError } from '@herald/core';
import type { AccountStore } from '@herald/core/ports';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { assertAdmin, assertCanSeeAccount, noteAudit } from '../access/request-access';

const accountParams = {
  type: 'object',
  required: ['accountId'],
  additionalProperties: false,
  properties: { accountId: { type: 'string', pattern: '^[a-z0-9_]{1,64}$' } },
} as const;

const limit = (max: number, description: string) => ({ type: 'integer', minimum: 0, maximum: max, description });

const limitsBody = {
  type: 'object',
  additionalProperties: false,
  description:
    "The account's own limits, replacing its previous override; a limit left out follows accounts.defaultLimits ({} clears the override).",
  properties: {
    dailyBroadcasts: limit(
      LIMIT_MAX.dailyBroadcasts,
      'broadcasts whose send time falls on one day; 0 stops the account',
    ),
    dailyRecipients: limit(LIMIT_MAX.dailyRecipients, 'recipients (list sizes) summed over those broadcasts'),
    minIntervalMs: limit(LIMIT_MAX.minIntervalMs, 'least time between the send times of two broadcasts, ms; 0: none'),
    maxSpeed: limit(
      LIMIT_MAX.maxSpeed,
      'the fastest a task may ask to be sent, recipients/s; 0: the account may not set a speed',
    ),
    confirmAbove: limit(
      CONFIRMATION_LIMIT_MAX.confirmAbove,
      'recipients above which a broadcast starting within confirmWithinMs needs "confirm": <count>',
    ),
    confirmWithinMs: limit(
      CONFIRMATION_LIMIT_MAX.confirmWithinMs,
      'how soon, ms, a broadcast over confirmAbove must start to need that confirmation',
    ),
  },
} as const;

const rateBody = {
  type: 'object',
  required: ['rate'],
  additionalProperties: false,
  properties: {
    rate: {
      type: ['number', 'null'],
      minimum: 0,
      maximum: 1,
      description: "clicks / delivered of the account's last broadcast; null: unknown (the limits as configured)",
    },
  },
} as const;

/**
 * B-side controls (docs/account-quotas.md): an account's limits in force and
 * today's usage, for admins and the account's operators; its overrides and
 * the click-through rate that scales them, for admins (the analytics side
 * feeds the rate with an admin token). An operator asking about another
 * account gets ACCOUNT_NOT_FOUND, as for a missing one.
 */
export function accountRoutes(app: FastifyInstance, deps: ApiDeps & { accounts: AccountStore }): void {
  const { accounts, clock, config } = deps;
  const view = (accountId: string) => describeAccountLimits(accounts, config.accounts, accountId, clock.now());
  const missing = (accountId: string) => () =>
    new NotFoundError('ACCOUNT_NOT_FOUND', `account ${accountId} not found`, { accountId });

  /** Admin only; the account is noted for the audit log. */
  function adminOn(request: FastifyRequest, accountId: string): void {
    noteAudit(request, { accountId, resource: `account:${accountId}` });
    assertAdmin(request);
  }

  app.get<{ Params: { accountId: string } }>(
    '/api/v1/accounts/:accountId/limits',
    { schema: { params: accountParams } },
    async (request) => {
      const { accountId } = request.params;
      assertCanSeeAccount(request, accountId, missing(accountId));
      return view(accountId);
    },
  );

  app.put<{ Params: { accountId: string }; Body: AccountLimitsOverride }>(
    '/api/v1/accounts/:accountId/limits',
    { schema: { params: accountParams, body: limitsBody } },
    async (request) => {
      const { accountId } = request.params;
      adminOn(request, accountId);
      await accounts.updateSettings(accountId, { limits: request.body }, clock.now());
      return view(accountId);
    },
  );

  app.put<{ Params: { accountId: string }; Body: { rate: number | null } }>(
    '/api/v1/accounts/:accountId/click-through-rate',
    { schema: { params: accountParams, body: rateBody } },
    async (request) => {
      const { accountId } = request.params;
      adminOn(request, accountId);
      await accounts.updateSettings(accountId, { clickThroughRate: request.body.rate }, clock.now());
      return view(accountId);
    },
  );
}

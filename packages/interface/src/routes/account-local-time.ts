import type { AccountLocalTime } from '@herald/core/account-quota';
import { NotFoundError } from '@herald/core';
import type { AccountStore } from '@herald/core/ports';
import {
  parseQuietHours,
  parseQuietLoginMode,
  parseUserTimeZone,
  quietHoursText,
  type DeliverAt,
  type QuietHours,
  type QuietLoginMode,
  type QuietPushMode,
} from '@herald/core/time';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { assertAdmin, assertCanSeeAccount, noteAudit } from '../access/request-access';

/** GET and PUT /api/v1/accounts/:accountId/local-time: what they answer. */
export interface AccountLocalTimeView {
  accountId: string;
  /** The zone of the account's recipients without a `tz`, for tasks whose deliverAt names none; null: UTC. */
  defaultTimeZone: string | null;
  /** Quiet hours every task of the account keeps unless it sets its own: 'HH:MM-HH:MM', or { hours, during }; null: none. */
  quietHours: string | { hours: string; during: QuietPushMode } | null;
  /** A login inside a task's quiet hours: 'deliver' (the default) the inbox, or 'hold' those tasks' entries to a later login. */
  loginDelivery: QuietLoginMode;
}

const accountParams = {
  type: 'object',
  required: ['accountId'],
  additionalProperties: false,
  properties: { accountId: { type: 'string', pattern: '^[a-z0-9_]{1,64}$' } },
} as const;

const localTimeBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    defaultTimeZone: { type: ['string', 'null'] },
    // A string or { hours, during }: checked by parseQuietHours, which names the field it refuses.
    quietHours: { description: "'HH:MM-HH:MM', { hours, during: 'hold' | 'offline' } or null" },
    loginDelivery: { type: ['string', 'null'] },
  },
} as const;

interface LocalTimeBody {
  defaultTimeZone?: string | null;
  quietHours?: unknown;
  loginDelivery?: string | null;
}

/**
 * An account's local-time defaults (docs/local-time.md, "Account defaults"):
 * readable by whoever may see the account, set by admins. A PUT replaces all
 * three (an absent field is null, loginDelivery 'deliver'); a zone, quiet
 * hours or login rule that do not parse are 400 VALIDATION_FAILED naming the
 * field, nothing changed.
 */
export function accountLocalTimeRoutes(app: FastifyInstance, deps: ApiDeps & { accounts: AccountStore }): void {
  const { accounts, clock } = deps;
  const missing = (accountId: string) => () =>
    new NotFoundError('ACCOUNT_NOT_FOUND', `account ${accountId} not found`, { accountId });
  const view = async (accountId: string): Promise<AccountLocalTimeView> => {
    const local = (await accounts.getSettings(accountId))?.localTime;
    return {
      accountId,
      defaultTimeZone: local?.defaultTimeZone ?? null,
      quietHours: local?.quietHours == null ? null : quietHoursText(local.quietHours),
      loginDelivery: local?.loginDelivery ?? 'deliver',
    };
  };

  app.get<{ Params: { accountId: string } }>(
    '/api/v1/accounts/:accountId/local-time',
    { schema: { params: accountParams } },
    async (request) => {
      const { accountId } = request.params;
      assertCanSeeAccount(request, accountId, missing(accountId));
      return view(accountId);
    },
  );

  app.put<{ Params: { accountId: string }; Body: LocalTimeBody }>(
    '/api/v1/accounts/:accountId/local-time',
    { schema: { params: accountParams, body: localTimeBody } },
    async (request) => {
      const { accountId } = request.params;
      noteAudit(request, { accountId, resource: `account:${accountId}` });
      assertAdmin(request);
      const { defaultTimeZone, quietHours, loginDelivery } = request.body;
      const login = parseQuietLoginMode(loginDelivery ?? undefined);
      const localTime: AccountLocalTime = {
        defaultTimeZone:
          defaultTimeZone === undefined || defaultTimeZone === null
            ? null
            : parseUserTimeZone(defaultTimeZone, 'defaultTimeZone'),
        quietHours: quietHours === undefined || quietHours === null ? null : parseQuietHours(quietHours),
        ...(login === 'hold' ? { loginDelivery: login } : {}),
      };
      await accounts.updateSettings(accountId, { localTime }, clock.now());
      return view(accountId);
    },
  );
}

/**
 * A new task's local-time fields with its account's defaults filled in: a
 * deliverAt that names no defaultTimeZone takes the account's, a task
 * without quiet hours keeps the account's, and the account's loginDelivery
 * 'hold' is stored on the task's quiet hours (`atLogin`).
 */
export function withAccountDefaults(
  deliverAt: DeliverAt | undefined,
  namedZone: boolean,
  quietHours: QuietHours | undefined,
  account: AccountLocalTime | undefined,
): { deliverAt?: DeliverAt; quietHours?: QuietHours } {
  const zone = account?.defaultTimeZone ?? null;
  const own = quietHours ?? account?.quietHours ?? undefined;
  // The account's login rule travels with the task, so a login walk needs only the task (docs/local-time.md).
  const quiet = own === undefined || account?.loginDelivery !== 'hold' ? own : { ...own, atLogin: 'hold' as const };
  return {
    ...(deliverAt === undefined
      ? {}
      : { deliverAt: namedZone || zone === null ? deliverAt : { ...deliverAt, defaultTimeZone: zone } }),
    ...(quiet === undefined ? {} : { quietHours: quiet }),
  };
}

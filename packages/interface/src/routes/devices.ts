import { ValidationError } from '@herald/core';
import { ACCOUNT_ID_PATTERN } from '@herald/core/access';
import {
  DEVICE_PLATFORMS,
  checkAnyDeviceToken,
  checkDeviceToken,
  normaliseToken,
  type DevicePlatform,
  type DeviceRegistry,
} from '@herald/core/ports';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { assertAdmin, noteAudit } from '../access/request-access';
import { parseUin } from './recipients';

interface RegisterBody {
  uin: number;
  platform: DevicePlatform;
  accountId?: string;
}

/**
 * The device registry of the mobile-push channels (docs/delivery.md,
 * "Device registry"): register a device token for a user, remove one, list a
 * user's devices. Admin only: the uin space is shared by every account, so a
 * token mapped to the wrong user would send one account's pushes to another's
 * users, and tokens are credentials of a sort (they address a phone); the app
 * backend that owns the devices holds an admin token. Served when the
 * profile wires a registry.
 */
export function deviceRoutes(app: FastifyInstance, deps: ApiDeps & { devices: DeviceRegistry }): void {
  const { devices, config } = deps;

  app.put<{ Params: { token: string }; Body: RegisterBody }>(
    '/api/v1/devices/:token',
    {
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['uin', 'platform'],
          properties: {
            uin: { type: 'integer', minimum: 0 },
            platform: { type: 'string', enum: [...DEVICE_PLATFORMS] },
            accountId: { type: 'string', pattern: ACCOUNT_ID_PATTERN.source },
          },
        },
      },
    },
    async (request) => {
      assertAdmin(request);
      const { token } = request.params;
      const { uin, platform, accountId } = request.body;
      checkUin(uin, config.uinLimit);
      checkDeviceToken(token, platform);
      noteAudit(request, { resource: `device:${uin}`, ...(accountId === undefined ? {} : { accountId }) });
      const { replaced } = await devices.register({ uin, platform, token, ...(accountId ? { accountId } : {}) });
      const [mine] = await devices.devicesOf(Uint32Array.of(uin));
      const stored = normaliseToken(token, platform);
      const device = mine!.find((d) => d.token === stored);
      return { ...device, replaced };
    },
  );

  app.delete<{ Params: { token: string } }>('/api/v1/devices/:token', async (request) => {
    assertAdmin(request);
    const { token } = request.params;
    checkAnyDeviceToken(token);
    noteAudit(request, { resource: 'device' });
    return { token, removed: await devices.remove(token) };
  });

  app.get<{ Params: { uin: string } }>('/api/v1/recipients/:uin/devices', async (request) => {
    assertAdmin(request);
    const uin = parseUin(request.params.uin, config.uinLimit);
    const [mine] = await devices.devicesOf(Uint32Array.of(uin));
    return { uin, devices: mine! };
  });
}

function checkUin(uin: number, uinLimit: number): void {
  if (uin >= uinLimit)
    throw new ValidationError(`uin ${uin} is outside the uin space [0, ${uinLimit})`, { field: 'uin' });
}

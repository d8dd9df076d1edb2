/**
 * The device registry's routes (routes/devices.ts; docs/delivery.md,
 * "Device registry"), joined into the route table by operations.ts.
 */
import { DEVICE_PLATFORMS, MAX_DEVICES_PER_UIN } from '@herald/core/ports';
import { json, type OperationDoc } from './operation-parts';
import { accountId, epochMs, integer, object, type JsonSchema } from './schema-builders';

const DEVICE: JsonSchema = object(
  {
    token: { type: 'string', description: 'the device token (an APNs token as stored: lower-case hex)' },
    uin: integer('the user the device reaches'),
    platform: { type: 'string', enum: [...DEVICE_PLATFORMS] },
    accountId: { ...accountId, description: 'the account the registration named, if it named one' },
    registeredAt: epochMs('the latest registration'),
  },
  ['token', 'uin', 'platform', 'registeredAt'],
);

const TOKEN_PARAM = {
  token: {
    type: 'string',
    description: 'fcm: 16 to 512 characters of A-Z a-z 0-9 _ : . -; apns: 32 to 200 hex digits',
  },
};

export const DEVICE_OPERATIONS: Record<string, OperationDoc> = {
  'PUT /api/v1/devices/:token': {
    tag: 'devices',
    access: 'admin',
    summary: "Register a device token for a user, the user's newest device",
    description: `Body \`{ uin, platform: 'fcm' | 'apns', accountId? }\`. A token is one device: registering it again moves it to the uin given. A user keeps at most ${MAX_DEVICES_PER_UIN} devices; one more drops the oldest, named in \`replaced\`.`,
    responses: {
      200: json(
        'registered',
        object(
          {
            ...(DEVICE.properties as Record<string, JsonSchema>),
            replaced: { type: 'array', items: { type: 'string' } },
          },
          ['token', 'uin', 'platform', 'registeredAt', 'replaced'],
        ),
      ),
    },
    errors: {
      400: "VALIDATION_FAILED: a token not of the platform's format, a uin outside the uin space, an unknown field (details.field)",
    },
    params: TOKEN_PARAM,
  },
  'DELETE /api/v1/devices/:token': {
    tag: 'devices',
    access: 'admin',
    summary: 'Remove a device token',
    description: 'Idempotent: `removed` says whether the token was registered.',
    responses: {
      200: json(
        'removed, or already gone',
        object({ token: { type: 'string' }, removed: { type: 'boolean' } }, ['token', 'removed']),
      ),
    },
    errors: { 400: 'VALIDATION_FAILED: not a device token (details.field token)' },
    params: TOKEN_PARAM,
  },
  'GET /api/v1/recipients/:uin/devices': {
    tag: 'devices',
    access: 'admin',
    summary: "A user's registered devices, oldest registration first",
    responses: {
      200: json(
        'the devices',
        object({ uin: integer('the user'), devices: { type: 'array', items: DEVICE } }, ['uin', 'devices']),
      ),
    },
    errors: { 400: 'VALIDATION_FAILED: a uin outside the uin space (details.field uin)' },
    params: { uin: { type: 'string', pattern: '^(0|[1-9][0-9]{0,15})$', description: 'the user' } },
  },
};

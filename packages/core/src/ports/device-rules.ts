/*
 * The argument checks of the DeviceRegistry contract (device-registry.ts),
 * shared by its adapters and the API. Pure: no I/O.
 */
import { ValidationError } from '../errors';
import { ACCOUNT_ID_PATTERN } from '../access/principal';
import { isSortedUint32 } from '../uins/sorted-set';
import type { DevicePlatform, DeviceRegistration } from './device-registry';

export const DEVICE_PLATFORMS: readonly DevicePlatform[] = ['fcm', 'apns'];

/**
 * Devices one user keeps; registering one more drops the oldest. Ten covers
 * a phone, a tablet and reinstalls whose old tokens were never reported dead;
 * a bound keeps a user whose app re-registers in a loop from growing without end.
 */
export const MAX_DEVICES_PER_UIN = 10;

/** The longest token of any platform (an FCM token is around 160 characters today). */
export const MAX_DEVICE_TOKEN_LENGTH = 512;

/** Tokens per removeDead call (a push gateway reports at most one batch's worth). */
export const MAX_DEAD_TOKENS = 10_000;

/**
 * Token formats. An FCM registration token is opaque (around 160 characters
 * today) of URL-safe base64 characters and ':'; an APNs device token is the
 * hex of the bytes Apple handed the app (32 today, documented as variable,
 * so up to 100).
 */
const TOKEN_FORMATS: Record<DevicePlatform, { pattern: RegExp; says: string }> = {
  fcm: { pattern: /^[A-Za-z0-9_:.-]{16,512}$/, says: '16 to 512 characters of A-Z a-z 0-9 _ : . -' },
  apns: { pattern: /^(?:[0-9a-fA-F]{2}){16,100}$/, says: 'hexadecimal, 32 to 200 digits, an even number' },
};
/** Any platform's token, for calls that take a token alone (remove). */
const ANY_TOKEN = /^[A-Za-z0-9_:.-]{16,512}$/;

export function checkDevicePlatform(platform: unknown, field = 'platform'): asserts platform is DevicePlatform {
  if (typeof platform !== 'string' || !DEVICE_PLATFORMS.includes(platform as DevicePlatform))
    throw new ValidationError(`${field} must be one of ${DEVICE_PLATFORMS.join(', ')}`, { field });
}

/** A token of `platform`'s format (apns tokens are compared lower-case: see normaliseToken). */
export function checkDeviceToken(token: unknown, platform: DevicePlatform, field = 'token'): asserts token is string {
  const format = TOKEN_FORMATS[platform];
  if (typeof token !== 'string' || !format.pattern.test(token))
    throw new ValidationError(`${field} is not a ${platform} device token: ${format.says}`, { field, platform });
}

/** A token of some platform's format. */
export function checkAnyDeviceToken(token: unknown, field = 'token'): asserts token is string {
  if (typeof token !== 'string' || !ANY_TOKEN.test(token))
    throw new ValidationError(`${field} is not a device token: 16 to 512 characters of A-Z a-z 0-9 _ : . -`, {
      field,
    });
}

/** APNs tokens are hex, whose case carries nothing: stored lower-case so one device is one key. */
export function normaliseToken(token: string, platform: DevicePlatform): string {
  return platform === 'apns' ? token.toLowerCase() : token;
}

export function checkDeviceUin(uin: unknown, field = 'uin'): asserts uin is number {
  if (typeof uin !== 'number' || !Number.isInteger(uin) || uin < 0 || uin > 0xffffffff)
    throw new ValidationError(`${field} must be an integer in 0..4294967295 (the uin space)`, { field });
}

export function checkDeviceRegistration(registration: DeviceRegistration): void {
  if (registration === null || typeof registration !== 'object')
    throw new ValidationError('a registration must be an object { uin, platform, token, accountId? }', {
      field: 'registration',
    });
  checkDeviceUin(registration.uin);
  checkDevicePlatform(registration.platform);
  checkDeviceToken(registration.token, registration.platform);
  const { accountId } = registration;
  if (accountId !== undefined && (typeof accountId !== 'string' || !ACCOUNT_ID_PATTERN.test(accountId)))
    throw new ValidationError('accountId must be 1 to 64 characters of a-z 0-9 _', { field: 'accountId' });
}

export function checkDeadTokens(tokens: readonly string[]): void {
  if (!Array.isArray(tokens as unknown)) throw new ValidationError('tokens must be an array', { field: 'tokens' });
  if (tokens.length > MAX_DEAD_TOKENS)
    throw new ValidationError(`at most ${MAX_DEAD_TOKENS} tokens per call`, { field: 'tokens' });
  tokens.forEach((token, i) => checkAnyDeviceToken(token, `tokens[${i}]`));
}

export function checkDeviceUins(uins: Uint32Array): void {
  if (!(uins instanceof Uint32Array) || !isSortedUint32(uins))
    throw new ValidationError('uins must be a Uint32Array sorted ascending', { field: 'uins' });
}

import { createPrivateKey, sign, type KeyObject } from 'node:crypto';

const base64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

/**
 * A compact JWS (RFC 7515) over `claims`: RS256 (RSASSA-PKCS1-v1_5 with
 * SHA-256) for Google's service-account flow, ES256 (ECDSA P-256 with
 * SHA-256, the signature as r || s per RFC 7518 3.4) for APNs.
 */
export function signJwt(
  alg: 'RS256' | 'ES256',
  key: KeyObject,
  claims: Record<string, unknown>,
  header: Record<string, string> = {},
): string {
  const input = `${base64url(JSON.stringify({ alg, typ: 'JWT', ...header }))}.${base64url(JSON.stringify(claims))}`;
  const signature =
    alg === 'RS256'
      ? sign('sha256', Buffer.from(input), key)
      : sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${base64url(signature)}`;
}

/** A PEM private key read for signing; throws with the key's problem (not PEM, wrong type) for the caller to name the setting. */
export function readPrivateKey(pem: string, expected: 'rsa' | 'ec'): KeyObject {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== expected)
    throw new Error(`a ${key.asymmetricKeyType ?? 'unknown'} key, where an ${expected.toUpperCase()} key is needed`);
  if (expected === 'ec' && key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
    throw new Error(
      `an EC key on ${key.asymmetricKeyDetails?.namedCurve ?? 'an unknown curve'}, where P-256 is needed`,
    );
  return key;
}

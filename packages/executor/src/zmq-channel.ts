import { readFileSync } from 'node:fs';
import { ConfigError } from '@herald/core';
import type { ZmqDeliveryConfig } from '@herald/core/config';
import { checkCurveKey, checkCurveKeyPair, generateKeyPair } from '@herald/transport';
import type { Logger, Meter } from '@herald/core/ports';
import { ZmqDeliveryGateway, type ZmqGatewayCurve } from './zmq-gateway';

/**
 * The ZeroMQ push gateway `delivery.zmq` configures, unpaced (the caller
 * paces it as every channel). Its key files are read here, at start: a
 * missing, unreadable or wrong one is a ConfigError naming its setting, so
 * the process does not start.
 */
export function openZmqGateway(
  zmq: ZmqDeliveryConfig,
  observers: { logger?: Logger; meter?: Meter } = {},
): ZmqDeliveryGateway {
  return new ZmqDeliveryGateway({
    endpoint: zmq.endpoint,
    curve: zmq.curve ? loadZmqCurve(zmq) : false,
    timeoutMs: zmq.timeoutMs,
    maxInFlight: zmq.maxInFlight,
    ...(observers.logger ? { logger: observers.logger } : {}),
    ...(observers.meter ? { meter: observers.meter } : {}),
  });
}

/** The service's public key and the executor's pair, from the files `delivery.zmq` names (a fresh pair without keyPairFile). */
export function loadZmqCurve(zmq: Pick<ZmqDeliveryConfig, 'serverPublicKeyFile' | 'keyPairFile'>): ZmqGatewayCurve {
  const serverSetting = 'delivery.zmq.serverPublicKeyFile';
  if (zmq.serverPublicKeyFile === null) throw new ConfigError(serverSetting, 'is required with CURVE on');
  const serverPublicKey = checkCurveKey(serverSetting, readKeyFile(serverSetting, zmq.serverPublicKeyFile).trim());
  if (zmq.keyPairFile === null) return { serverPublicKey, ...generateKeyPair() };
  const pairSetting = 'delivery.zmq.keyPairFile';
  let parsed: unknown;
  try {
    parsed = JSON.parse(readKeyFile(pairSetting, zmq.keyPairFile));
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(pairSetting, `${zmq.keyPairFile} is not JSON {"publicKey","secretKey"}`);
  }
  const { publicKey, secretKey } = (parsed ?? {}) as { publicKey?: unknown; secretKey?: unknown };
  return { serverPublicKey, ...checkCurveKeyPair(pairSetting, publicKey, pairSetting, secretKey) };
}

function readKeyFile(setting: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(setting, `cannot read ${file}: ${(error as Error).message}`);
  }
}

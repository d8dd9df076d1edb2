import { ConfigError } from '@herald/core';
import type { ProductionConfig } from '@herald/core/config';
import type { ZooKeeperAuthOptions } from '@herald/coordinator-zookeeper';
import type { KafkaSaslCredentials, KafkaTlsMaterial } from '@herald/events-kafka';
import type { MySqlTaskStoreOptions, MySqlTlsMaterial } from '@herald/store-mysql';
import { readSettingFile, secretFromFile } from './setting-files';

/**
 * The connection security settings turned into what the adapters take: the
 * files they name read at start (docs/security-connections.md). A missing or
 * unreadable file fails the start with one line naming its setting; no
 * message shows a password, credential or key.
 */

/**
 * `kafka.sasl` and `kafka.tls` for KafkaEventBus.connect; with `path`
 * 'delivery.kafka', that channel's own (KafkaDeliveryGateway.connect).
 */
export function kafkaSecurityOptions(
  kafka: Pick<ProductionConfig['kafka'], 'sasl' | 'tls'>,
  path = 'kafka',
): {
  sasl?: KafkaSaslCredentials;
  tls?: KafkaTlsMaterial;
} {
  const { sasl, tls } = kafka;
  return {
    ...(sasl === null
      ? {}
      : {
          sasl: {
            mechanism: sasl.mechanism,
            username: sasl.username,
            password: sasl.password ?? secretFromFile(`${path}.sasl.passwordFile`, sasl.passwordFile!),
          },
        }),
    ...(tls === null
      ? {}
      : {
          tls: {
            rejectUnauthorized: tls.rejectUnauthorized,
            ...(tls.caFile === null ? {} : { ca: readSettingFile(`${path}.tls.caFile`, tls.caFile) }),
            ...(tls.certFile === null ? {} : { cert: readSettingFile(`${path}.tls.certFile`, tls.certFile) }),
            ...(tls.keyFile === null ? {} : { key: readSettingFile(`${path}.tls.keyFile`, tls.keyFile) }),
          },
        }),
  };
}

/** `zookeeper.auth` for ZooKeeperCoordinator.connect; undefined: open ACLs. */
export function zookeeperAuthOptions(zookeeper: ProductionConfig['zookeeper']): ZooKeeperAuthOptions | undefined {
  const { auth } = zookeeper;
  if (auth === null) return undefined;
  const credentials = auth.credentials ?? secretFromFile('zookeeper.auth.credentialsFile', auth.credentialsFile!);
  if (!/^[^:\s]+:.+$/s.test(credentials))
    throw new ConfigError(
      'zookeeper.auth.credentialsFile',
      `${JSON.stringify(auth.credentialsFile)} must hold "user:password" (the contents are not shown)`,
    );
  return { credentials, ...(auth.monitorDigest === null ? {} : { monitorDigest: auth.monitorDigest }) };
}

/** `mysql.tls` for the MySQL adapters and migrate; undefined: plaintext. */
export function mysqlTlsOptions(mysql: ProductionConfig['mysql']): MySqlTlsMaterial | undefined {
  const { tls } = mysql;
  if (tls === null) return undefined;
  return {
    rejectUnauthorized: tls.rejectUnauthorized,
    verifyIdentity: tls.verifyIdentity,
    ...(tls.caFile === null ? {} : { ca: readSettingFile('mysql.tls.caFile', tls.caFile) }),
    ...(tls.certFile === null ? {} : { cert: readSettingFile('mysql.tls.certFile', tls.certFile) }),
    ...(tls.keyFile === null ? {} : { key: readSettingFile('mysql.tls.keyFile', tls.keyFile) }),
  };
}

/** What every MySQL adapter opens with: `mysql.*`, TLS material read, `poolSize` overridable (the CLI uses 1). */
export function mysqlOptions(mysql: ProductionConfig['mysql'], poolSize = mysql.poolSize): MySqlTaskStoreOptions {
  const tls = mysqlTlsOptions(mysql);
  return {
    url: mysql.url,
    database: mysql.database,
    poolSize,
    replyTimeoutMs: mysql.replyTimeoutMs,
    ...(tls === undefined ? {} : { tls }),
  };
}

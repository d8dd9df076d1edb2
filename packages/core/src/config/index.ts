/**
 * @module @herald/core/config
 *
 * Configuration in three steps: documented options (`HeraldOptions`) -> defaults
 * (`DEFAULTS`) -> the compiled, validated `HeraldConfig` (durations as `...Ms`
 * numbers), with a `ConfigError` naming the bad field. Also the connection-security
 * options (docs/security-connections.md).
 *
 * @example
 *   import { compileConfig } from '@herald/core/config';
 *   const config = compileConfig({ uinSpaceBits: 24 });
 */
export { compileConfig } from './compile';
export { isLoopbackHost } from './compile-management';
export { DEFAULTS } from './options';
export type { CampaignsConfig, AccountsConfig, AudiencesConfig, LoadConfig } from './options';
export type {
  HeraldOptions,
  HeraldConfig,
  AuthConfig,
  DeliveryConfig,
  KafkaDeliveryConfig,
  ZmqDeliveryConfig,
  FcmDeliveryConfig,
  ApnsDeliveryConfig,
  PushChannelConfig,
  ChannelPacingConfig,
  FrequencyConfig,
  InterfaceMember,
  ManagementConfig,
  PresenceMember,
  ProductionConfig,
  TopologyMember,
} from './options';
export type { BandwidthConfig, BandwidthTraffic } from './options';
export { KAFKA_SASL_MECHANISMS } from './connection-security';
export type {
  KafkaSaslMechanism,
  KafkaSaslOptions,
  KafkaSaslConfig,
  TlsFileOptions,
  TlsFileConfig,
  MySqlTlsOptions,
  MySqlTlsConfig,
  ZooKeeperAuthOptions,
  ZooKeeperAuthConfig,
  PresenceOptions,
  PresenceConfig,
} from './connection-security';
// Setting checks shared with adapters that take the same settings as options (one set of bounds and messages).
export { int as intSetting } from './validate';
export { checkClientCertPair, checkKafkaSaslMechanism, checkPlainHasTls } from './compile-connection-security';
export { checkKafkaTopic } from './compile-delivery-kafka';
export {
  KAFKA_LIMITS,
  KAFKA_MAX_REPLICATION,
  KAFKA_PARTITIONS,
  checkKafkaBrokers,
  checkKafkaPartitions,
  checkKafkaReplicationFactor,
  checkKafkaTopicPrefix,
  kafkaMs,
} from './kafka-settings';
export {
  ZOOKEEPER_LIMITS,
  checkZnodePath,
  checkZooKeeperConnectionString,
  checkZooKeeperCredentials,
  checkZooKeeperMonitorDigest,
  checkZooKeeperRoot,
  zookeeperMs,
} from './zookeeper-settings';

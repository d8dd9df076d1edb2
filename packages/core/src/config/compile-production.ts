import { ConfigError } from '../errors';
import { compileAptaConfig } from '../apta/config';
import {
  DEFAULTS,
  type HeraldOptions,
  type InterfaceMember,
  type PresenceMember,
  type ProductionConfig,
  type TopologyMember,
} from './options';
import { compileKafkaSecurityConfig, compileMySqlTls, compileZooKeeperAuth } from './compile-connection-security';
import { section } from './section';
import { checkKnownKeys, int, str } from './validate';
import {
  checkKafkaBrokers,
  checkKafkaPartitions,
  checkKafkaReplicationFactor,
  checkKafkaTopicPrefix,
  kafkaMs,
} from './kafka-settings';
import { checkZooKeeperConnectionString, checkZooKeeperRoot, zookeeperMs } from './zookeeper-settings';

/**
 * The production profile's settings: every server and every process address
 * must be named, since a production process that guessed would fail later
 * and less clearly.
 */
export function compileProduction(options: HeraldOptions): ProductionConfig {
  const mysql = section(options, 'mysql', ['url', 'database', 'poolSize', 'replyTimeoutMs', 'tls']);
  const zookeeper = section(options, 'zookeeper', [
    'connectionString',
    'root',
    'sessionTimeoutMs',
    'connectTimeoutMs',
    'auth',
  ]);
  const kafka = section(options, 'kafka', [
    'brokers',
    'clientId',
    'topicPrefix',
    'connectTimeoutMs',
    'partitions',
    'replicationFactor',
    'sasl',
    'tls',
  ]);
  const curve = section(options, 'curve', ['keysDir']);
  const topology = section(options, 'topology', ['schedulers', 'dispatchers', 'executors', 'presence', 'interfaces']);

  const url = required('mysql.url', mysql.url);
  if (!/^mysql:\/\//.test(url))
    throw new ConfigError('mysql.url', `must be a mysql:// URL (got ${JSON.stringify(url)})`);
  if (kafka.brokers === undefined)
    throw new ConfigError('kafka.brokers', 'is required in production: a non-empty list of host:port');
  const brokers = checkKafkaBrokers(kafka.brokers);
  const root = checkZooKeeperRoot(str('zookeeper.root', zookeeper.root, DEFAULTS.zookeeper.root));
  const executors = members('topology.executors', topology.executors);
  const schedulers = members('topology.schedulers', topology.schedulers);
  const dispatchers = members('topology.dispatchers', topology.dispatchers);
  const aptaOn = schedulers.some((m) => m.membership !== undefined);
  if (aptaOn) {
    for (const [group, list] of [
      ['schedulers', schedulers],
      ['dispatchers', dispatchers],
      ['executors', executors],
    ] as const) {
      const i = list.findIndex((m) => m.membership === undefined);
      if (i >= 0)
        throw new ConfigError(
          `topology.${group}[${i}].membership`,
          'is required once any scheduler names one (APTA runs, and every process that sends to schedulers follows its ring)',
        );
    }
  } else if (options.apta !== undefined) {
    throw new ConfigError(
      'apta',
      'needs membership endpoints on the schedulers, dispatchers and executors (topology.schedulers[i].membership ...)',
    );
  }
  const interfaces = aptaOn ? interfaceMembers(topology.interfaces) : [];
  if (!aptaOn && topology.interfaces !== undefined)
    throw new ConfigError('topology.interfaces', 'is only used with APTA (membership endpoints on the schedulers)');
  return {
    mysql: {
      url,
      database: identifier('mysql.database', str('mysql.database', mysql.database, DEFAULTS.mysql.database)),
      poolSize: int('mysql.poolSize', mysql.poolSize, DEFAULTS.mysql.poolSize, 1, 1000),
      replyTimeoutMs: int('mysql.replyTimeoutMs', mysql.replyTimeoutMs, DEFAULTS.mysql.replyTimeoutMs, 100, 3_600_000),
      tls: compileMySqlTls(mysql.tls),
    },
    zookeeper: {
      connectionString: checkZooKeeperConnectionString(
        required('zookeeper.connectionString', zookeeper.connectionString),
      ),
      root,
      sessionTimeoutMs: zookeeperMs('sessionTimeoutMs', zookeeper.sessionTimeoutMs),
      connectTimeoutMs: zookeeperMs('connectTimeoutMs', zookeeper.connectTimeoutMs),
      auth: compileZooKeeperAuth(zookeeper.auth),
    },
    kafka: {
      brokers,
      clientId: str('kafka.clientId', kafka.clientId, DEFAULTS.kafka.clientId),
      topicPrefix:
        kafka.topicPrefix === undefined ? DEFAULTS.kafka.topicPrefix : checkKafkaTopicPrefix(String(kafka.topicPrefix)),
      connectTimeoutMs: kafkaMs('connectTimeoutMs', kafka.connectTimeoutMs),
      partitions: checkKafkaPartitions(kafka.partitions),
      replicationFactor: checkKafkaReplicationFactor(kafka.replicationFactor),
      ...compileKafkaSecurityConfig(kafka.sasl, kafka.tls),
    },
    curve: { keysDir: required('curve.keysDir', curve.keysDir) },
    topology: {
      schedulers,
      dispatchers,
      executors,
      presence: presenceAgents(topology.presence, executors),
      interfaces,
    },
    apta: aptaOn ? compileAptaConfig(options.apta ?? {}, 'apta') : null,
  };
}

function required(path: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) throw new ConfigError(path, 'is required in production');
  return value;
}

function identifier(path: string, value: string, allowEmpty = false): string {
  if ((allowEmpty && value === '') || /^[A-Za-z0-9_.-]{1,64}$/.test(value)) return value;
  throw new ConfigError(path, `must be letters, digits, _ . - (got ${JSON.stringify(value)})`);
}

function members(path: string, value: unknown): TopologyMember[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new ConfigError(path, 'is required in production: a non-empty list of { id, endpoint }');
  const ids = new Set<string>();
  return value.map((member, i) => {
    const where = `${path}[${i}]`;
    if (member === null || typeof member !== 'object') throw new ConfigError(where, 'must be { id, endpoint }');
    const seconds = SECOND_INBOXES[path] ?? [];
    checkKnownKeys(where, member as object, ['id', 'endpoint', 'membership', ...seconds]);
    const { id, endpoint, membership } = member as Record<string, unknown>;
    if (typeof id !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(id))
      throw new ConfigError(`${where}.id`, 'must be letters, digits, _ . -');
    if (ids.has(id)) throw new ConfigError(`${where}.id`, `repeats ${id}`);
    ids.add(id);
    if (typeof endpoint !== 'string' || !TCP.test(endpoint))
      throw new ConfigError(`${where}.endpoint`, `must be tcp://host:port (got ${JSON.stringify(endpoint)})`);
    const extra: Partial<Record<SecondInbox, string>> = {};
    for (const second of seconds) {
      const secondEndpoint = (member as Record<string, unknown>)[second];
      if (secondEndpoint === undefined) continue;
      if (typeof secondEndpoint !== 'string' || !TCP.test(secondEndpoint))
        throw new ConfigError(`${where}.${second}`, `must be tcp://host:port (got ${JSON.stringify(secondEndpoint)})`);
      if (secondEndpoint === endpoint || secondEndpoint === membership || Object.values(extra).includes(secondEndpoint))
        throw new ConfigError(`${where}.${second}`, 'must differ from the inbox, membership and other endpoints');
      extra[second] = secondEndpoint;
    }
    if (membership === undefined) return { id, endpoint, ...extra };
    if (typeof membership !== 'string' || !TCP.test(membership))
      throw new ConfigError(`${where}.membership`, `must be tcp://host:port (got ${JSON.stringify(membership)})`);
    if (membership === endpoint) throw new ConfigError(`${where}.membership`, 'must differ from the inbox endpoint');
    return { id, endpoint, membership, ...extra };
  });
}

const TCP = /^tcp:\/\/[^:\s]+:\d{1,5}$/;

type SecondInbox = 'realtimeEndpoint' | 'controlEndpoint' | 'channelEndpoint';

/**
 * The further inboxes a tier may name: executors one for real-time batches
 * and one for their peers' channel throttles, schedulers one for commands.
 */
const SECOND_INBOXES: Record<string, readonly SecondInbox[] | undefined> = {
  'topology.executors': ['realtimeEndpoint', 'channelEndpoint'],
  'topology.schedulers': ['controlEndpoint'],
};

/** The interface processes of an APTA cluster: each follows the ring to route tasks. */
function interfaceMembers(value: unknown): InterfaceMember[] {
  const path = 'topology.interfaces';
  if (!Array.isArray(value) || value.length === 0)
    throw new ConfigError(path, 'is required with APTA: a non-empty list of { id, membership }');
  const ids = new Set<string>();
  return value.map((member, i) => {
    const where = `${path}[${i}]`;
    if (member === null || typeof member !== 'object') throw new ConfigError(where, 'must be { id, membership }');
    checkKnownKeys(where, member as object, ['id', 'membership']);
    const { id, membership } = member as Record<string, unknown>;
    if (typeof id !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(id))
      throw new ConfigError(`${where}.id`, 'must be letters, digits, _ . -');
    if (ids.has(id)) throw new ConfigError(`${where}.id`, `repeats ${id}`);
    ids.add(id);
    if (typeof membership !== 'string' || !TCP.test(membership))
      throw new ConfigError(`${where}.membership`, `must be tcp://host:port (got ${JSON.stringify(membership)})`);
    return { id, membership };
  });
}

/** The presence agents: one per host, each naming its host's executors; every executor has exactly one. */
function presenceAgents(value: unknown, executors: TopologyMember[]): PresenceMember[] {
  const path = 'topology.presence';
  if (!Array.isArray(value) || value.length === 0)
    throw new ConfigError(
      path,
      'is required in production: a non-empty list of { id, bitmapFile, executors }, one per host',
    );
  const ids = new Set<string>();
  const agentOf = new Map<string, string>();
  const known = new Set(executors.map((e) => e.id));
  const agents = value.map((member, i): PresenceMember => {
    const where = `${path}[${i}]`;
    if (member === null || typeof member !== 'object')
      throw new ConfigError(where, 'must be { id, bitmapFile, executors }');
    checkKnownKeys(where, member as object, ['id', 'bitmapFile', 'executors']);
    const { id, bitmapFile, executors: hosted } = member as Record<string, unknown>;
    if (typeof id !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(id))
      throw new ConfigError(`${where}.id`, 'must be letters, digits, _ . -');
    if (ids.has(id)) throw new ConfigError(`${where}.id`, `repeats ${id}`);
    ids.add(id);
    if (typeof bitmapFile !== 'string' || !bitmapFile.startsWith('/'))
      throw new ConfigError(`${where}.bitmapFile`, `must be an absolute path (got ${JSON.stringify(bitmapFile)})`);
    if (!Array.isArray(hosted) || hosted.some((e) => typeof e !== 'string'))
      throw new ConfigError(`${where}.executors`, 'must be a list of executor ids');
    for (const executor of hosted as string[]) {
      if (!known.has(executor))
        throw new ConfigError(`${where}.executors`, `names ${executor}, which is not in topology.executors`);
      const other = agentOf.get(executor);
      if (other !== undefined)
        throw new ConfigError(
          `${where}.executors`,
          `names ${executor}, which already belongs to presence agent ${other}`,
        );
      agentOf.set(executor, id);
    }
    return { id, bitmapFile, executors: [...(hosted as string[])] };
  });
  const orphan = executors.find((e) => !agentOf.has(e.id));
  if (orphan !== undefined)
    throw new ConfigError(
      path,
      `no presence agent names executor ${orphan.id}: every executor needs the agent of its host`,
    );
  return agents;
}

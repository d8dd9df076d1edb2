/**
 * Herald's configuration, step one of three: the documented options an
 * operator writes (every field optional). `compileConfig` fills the defaults
 * and validates, giving a `HeraldConfig` whose durations are `...Ms` numbers.
 * docs/configuration.md lists the same options for operators.
 */
export interface HeraldOptions {
  /** 'embedded': every tier in one process, LevelDB stores, ZeroMQ inproc. Default 'embedded'. */
  profile?: 'embedded';
  /** Where every store, list file and delivery file lives. Default './herald-data'. */
  dataDir?: string;
  /** Uins lie in [0, 2^uinSpaceBits). 1..32, default 32 (the 512 MiB online bitmap). */
  uinSpaceBits?: number;
  http?: {
    /** Default '127.0.0.1'. */
    host?: string;
    /** Default 8080; 0 picks a free port. */
    port?: number;
    /** Largest accepted recipient-list upload in bytes. Default 8 GiB. */
    uploadLimitBytes?: number;
  };
  tasks?: {
    /** Lifetime of a task (and its offline entries) when the request names none. Default 7 days. */
    defaultTtlMs?: number;
    /** Longest lifetime a request may ask for. Default 30 days. */
    maxTtlMs?: number;
    /** Largest content body in characters. Default 4096. */
    maxContentChars?: number;
  };
  scheduler?: {
    /** This scheduler's member id on the ring. Default 'scheduler-1'. */
    id?: string;
    /** Tasks sending at once (executor slots). Default 4. */
    slots?: number;
    /** How often scheduled tasks are checked for their send time, ms. Default 1000. */
    tickMs?: number;
  };
  dispatcher?: {
    /** Uins per batch message to an executor. Default 4096. */
    batchSize?: number;
    /** Recipients per execution unit. Default 1,048,576. */
    unitSize?: number;
  };
  executor?: {
    /** Executor ids in the embedded profile; units are spread across them. Default ['executor-1']. */
    ids?: string[];
  };
  offline?: {
    /** Uins per offline-list range: 2^rangeBits. A login reads one range's index. 8..32, default 20. */
    rangeBits?: number;
  };
  transport?: {
    /** ZeroMQ high-water mark (messages) on every socket: the backpressure bound. Default 64. */
    highWaterMark?: number;
  };
}

export interface HeraldConfig {
  profile: 'embedded';
  dataDir: string;
  uinSpaceBits: number;
  /** 2^uinSpaceBits: the first uin outside the space. */
  uinLimit: number;
  http: { host: string; port: number; uploadLimitBytes: number };
  tasks: { defaultTtlMs: number; maxTtlMs: number; maxContentChars: number };
  scheduler: { id: string; slots: number; tickMs: number };
  dispatcher: { batchSize: number; unitSize: number };
  executor: { ids: string[] };
  offline: { rangeBits: number };
  transport: { highWaterMark: number };
}

export const DEFAULTS = {
  profile: 'embedded',
  dataDir: './herald-data',
  uinSpaceBits: 32,
  http: { host: '127.0.0.1', port: 8080, uploadLimitBytes: 8 * 2 ** 30 },
  tasks: { defaultTtlMs: 7 * 86_400_000, maxTtlMs: 30 * 86_400_000, maxContentChars: 4096 },
  scheduler: { id: 'scheduler-1', slots: 4, tickMs: 1000 },
  dispatcher: { batchSize: 4096, unitSize: 1 << 20 },
  executor: { ids: ['executor-1'] },
  offline: { rangeBits: 20 },
  transport: { highWaterMark: 64 },
} as const;

import { Agent, request } from 'node:http';
import { ConfigError } from '@herald/core';
import type { HeraldConfig } from '@herald/core/config';
import { decodeDeliveryRecord, type DeliveryRecord, type LoginOutcome } from '@herald/core/fate';
import type { Logger, PurgedRecords } from '@herald/core/ports';
import { hashManagementToken } from './management-guard';
import type { WireRecord } from './management-records';
import {
  decodeBucketPage,
  decodeBucketTable,
  type BucketOutcomes,
  type BucketTable,
  type WireBucketOutcomes,
  type WireBucketTable,
} from './login-wire';
import { secretFromFile } from './setting-files';

/**
 * How long an interface waits for an executor's management endpoint before
 * it answers "host <id> unreachable": short, since a lookup waits for it, and
 * long enough for a page of records from a loaded host.
 */
export const RECORDS_TIMEOUT_MS = 2_000;

/** How long a kept-alive connection to an executor may sit idle: less than a node:http server's 5 s keepAliveTimeout. */
const IDLE_CONNECTION_MS = 4_000;

/** The executor did not answer (refused, timed out, or answered an error): its part is unknown. */
export class HostDown extends Error {
  constructor(
    readonly host: string,
    cause: string,
  ) {
    super(`executor ${host}: ${cause}`);
    this.name = 'HostDown';
  }
}

/** A page of batch records and where the next one starts (`after`: the last first position), or null at the end. */
export interface BatchPage {
  records: DeliveryRecord[];
  after: number | null;
}

export interface LoginPage {
  outcomes: LoginOutcome[];
  next: number | null;
}

/**
 * Asks executors' management endpoints for their delivery records
 * (management-records.ts), with the cluster's management token, each call
 * bounded by `timeoutMs`. Every failure is a HostDown naming the executor.
 */
export class ExecutorRecordsClient {
  constructor(
    /** The executors of the topology, in order. */
    readonly executors: readonly string[],
    private readonly addresses: Readonly<Record<string, string>>,
    private readonly token: string,
    private readonly logger: Logger,
    private readonly timeoutMs = RECORDS_TIMEOUT_MS,
  ) {}

  /**
   * Connections kept open between requests, up to 64 per executor (a lookup's width and a walk's pages). One
   * idle for IDLE_CONNECTION_MS is closed here before the executor (a node:http server closes an idle
   * connection after 5 s) closes it under a request.
   */
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64, timeout: IDLE_CONNECTION_MS });

  async batchAt(host: string, taskId: number, position: number): Promise<DeliveryRecord | undefined> {
    const { record } = await this.get<{ record: WireRecord | null }>(host, '/records/batch', {
      task: taskId,
      position,
    });
    return record === null ? undefined : fromWire(taskId, record);
  }

  /** The host's records from the one holding `from` (or after `after`), at most `limit`. */
  async batches(
    host: string,
    taskId: number,
    start: { from: number } | { after: number },
    limit: number,
  ): Promise<BatchPage> {
    const page = await this.get<{ records: WireRecord[]; after: number | null }>(host, '/records/batches', {
      task: taskId,
      ...start,
      limit,
    });
    return { records: page.records.map((r) => fromWire(taskId, r)), after: page.after };
  }

  async loginOf(host: string, taskId: number, uin: number): Promise<LoginOutcome | undefined> {
    const { outcome } = await this.get<{ outcome: Omit<LoginOutcome, 'taskId'> | null }>(host, '/records/login', {
      task: taskId,
      uin,
    });
    return outcome === null ? undefined : { taskId, ...outcome };
  }

  async logins(host: string, taskId: number, from: number, limit: number): Promise<LoginPage> {
    const page = await this.get<{ outcomes: Array<Omit<LoginOutcome, 'taskId'>>; next: number | null }>(
      host,
      '/records/logins',
      { task: taskId, from, limit },
    );
    return { outcomes: page.outcomes.map((o) => ({ taskId, ...o })), next: page.next };
  }

  /** The host's login outcomes of the task counted by bucket of 2^16 uins (GET /records/login-buckets). */
  async loginBuckets(host: string, taskId: number): Promise<BucketTable> {
    const wire = await this.get<WireBucketTable>(host, '/records/login-buckets', { task: taskId });
    return this.decoded(host, () => decodeBucketTable(wire));
  }

  /**
   * The host's login outcomes of the task in whole buckets from `bucket`, at
   * most `count` of them (GET /records/bucket-outcomes): as many as one page
   * holds, and how many that is.
   */
  async bucketOutcomes(
    host: string,
    taskId: number,
    bucket: number,
    count: number,
  ): Promise<{ buckets: number; outcomes: BucketOutcomes }> {
    const query = { task: taskId, bucket, buckets: count };
    const wire = await this.get<WireBucketOutcomes>(host, '/records/bucket-outcomes', query);
    return this.decoded(host, () => decodeBucketPage(wire, bucket, count));
  }

  /** An answer that cannot be read (an executor of another version) is the host's part unknown, as a refusal is. */
  private decoded<T>(host: string, decode: () => T): T {
    try {
      return decode();
    } catch (error) {
      const down = new HostDown(host, `unreadable answer: ${String(error)}`);
      this.logger.warn('an executor did not give its delivery records', { host, error: down.message });
      throw down;
    }
  }

  /** Removes the host's records of the task (POST /records/purge); how many it removed. */
  async purge(host: string, taskId: number): Promise<PurgedRecords> {
    const { batches, logins } = await this.ask<PurgedRecords>(host, '/records/purge', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ task: taskId }),
    });
    return { batches, logins };
  }

  private get<T>(host: string, path: string, query: Record<string, number>): Promise<T> {
    const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
    return this.ask<T>(host, `${path}?${search.toString()}`, { method: 'GET' });
  }

  /**
   * One request to the host's management endpoint over a kept-alive
   * connection (node:http, not fetch: a lookup makes one to three of these,
   * and fetch's per-request machinery cost more CPU than the rest of the
   * lookup on a loaded host). Any failure, a status other than 200 or no
   * answer within timeoutMs: HostDown.
   */
  private async ask<T>(
    host: string,
    pathAndQuery: string,
    init: { method: string; headers?: Record<string, string>; body?: string },
  ): Promise<T> {
    const address = this.addresses[host];
    const path = pathAndQuery.split('?')[0]!;
    if (address === undefined) throw new HostDown(host, `no management endpoint (management.endpoints.${host})`);
    try {
      // A kept-alive connection the host closed as it was reused fails at once: a read is sent again, once, on a
      // new connection (another idle one may be as stale).
      const { status, body } = await this.exchange(address, pathAndQuery, init, this.agent).catch((error: Error) => {
        if (error instanceof StaleConnection && init.method === 'GET')
          return this.exchange(address, pathAndQuery, init, false);
        throw error;
      });
      if (status !== 200) throw new HostDown(host, `${path} answered ${status}: ${body.slice(0, 200)}`);
      return JSON.parse(body) as T;
    } catch (error) {
      const down = error instanceof HostDown ? error : new HostDown(host, String(error));
      this.logger.warn('an executor did not give its delivery records', { host, path, error: down.message });
      throw down;
    }
  }

  private exchange(
    address: string,
    pathAndQuery: string,
    init: { method: string; headers?: Record<string, string>; body?: string },
    agent: Agent | false,
  ): Promise<{ status: number; body: string }> {
    const { hostname, port } = new URL(`http://${address}`);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: hostname.replace(/^\[(.*)\]$/, '$1'),
          port,
          path: pathAndQuery,
          method: init.method,
          agent,
          headers: { ...init.headers, authorization: `Bearer ${this.token}` },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
          });
          res.on('error', reject);
        },
      );
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        req.destroy(new Error(`no answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(req.reusedSocket && !timedOut ? new StaleConnection(error) : error);
      });
      req.end(init.body);
    });
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }
}

/** A request on a reused kept-alive connection failed before any answer: the host may have closed it meanwhile. */
class StaleConnection extends Error {
  constructor(cause: Error) {
    super(`a kept-alive connection failed: ${cause.message}`, { cause });
    this.name = 'StaleConnection';
  }
}

function fromWire(taskId: number, record: WireRecord): DeliveryRecord {
  return decodeDeliveryRecord(taskId, record.from, Buffer.from(record.value, 'base64'));
}

/**
 * The client an interface process asks its cluster's executors with, or
 * undefined without management.tokenFile (reached recipients are then
 * answered unknown). The token must be the one management.tokenHash names:
 * a wrong one would have every executor refuse, which is a configuration
 * error, said at start.
 */
export function executorRecordsClient(config: HeraldConfig, logger: Logger): ExecutorRecordsClient | undefined {
  const { tokenFile, tokenHash, endpoints } = config.management;
  if (tokenFile === null) return undefined;
  const token = secretFromFile('management.tokenFile', tokenFile).trim();
  if (tokenHash !== null && hashManagementToken(token) !== tokenHash)
    throw new ConfigError('management.tokenFile', 'holds a token whose SHA-256 is not management.tokenHash');
  const executors = config.production!.topology.executors.map((e) => e.id);
  const missing = executors.filter((id) => endpoints[id] === undefined);
  if (missing.length > 0)
    logger.warn('executors without a management endpoint: their recipients are answered unknown', { missing });
  return new ExecutorRecordsClient(executors, endpoints, token, logger);
}

/**
 * The part of node-zookeeper-client 1.1.3 (no types of its own) that this
 * adapter uses. Callbacks follow Node's (error, result) convention; `error`
 * is the library's Exception, whose `getCode()` is one of `Exception`'s codes.
 */
declare module 'node-zookeeper-client' {
  import { EventEmitter } from 'node:events';

  export interface State {
    readonly name: string;
    readonly code: number;
  }
  export const State: {
    readonly DISCONNECTED: State;
    readonly SYNC_CONNECTED: State;
    readonly AUTH_FAILED: State;
    readonly CONNECTED_READ_ONLY: State;
    readonly EXPIRED: State;
  };

  export interface Exception extends Error {
    readonly code: number;
    getCode(): number;
    getName(): string;
    getPath(): string | undefined;
  }
  export const Exception: {
    readonly OK: number;
    readonly CONNECTION_LOSS: number;
    readonly OPERATION_TIMEOUT: number;
    readonly NO_NODE: number;
    readonly BAD_VERSION: number;
    readonly NODE_EXISTS: number;
    readonly NOT_EMPTY: number;
    readonly SESSION_EXPIRED: number;
    readonly NO_AUTH: number;
    readonly AUTH_FAILED: number;
    readonly INVALID_ACL: number;
  };

  /** Permission bits of an ACL entry. */
  export const Permission: {
    readonly READ: number;
    readonly WRITE: number;
    readonly CREATE: number;
    readonly DELETE: number;
    readonly ADMIN: number;
    readonly ALL: number;
  };

  /** An identity: scheme ('world', 'auth', 'digest', 'ip', ...) and id. */
  export class Id {
    constructor(scheme: string, id: string);
    readonly scheme: string;
    readonly id: string;
  }

  export class ACL {
    constructor(permission: number, id: Id);
    readonly permission: number;
    readonly id: Id;
    /** world:anyone:cdrwa, the library's default for create. */
    static readonly OPEN_ACL_UNSAFE: ACL[];
    /** auth::cdrwa: every identity the creating session authenticated as, all permissions. */
    static readonly CREATOR_ALL_ACL: ACL[];
  }

  export const CreateMode: {
    readonly PERSISTENT: number;
    readonly PERSISTENT_SEQUENTIAL: number;
    readonly EPHEMERAL: number;
    readonly EPHEMERAL_SEQUENTIAL: number;
  };

  export interface Stat {
    readonly version: number;
    readonly cversion: number;
    readonly numChildren: number;
  }

  export interface Event {
    readonly type: number;
    readonly name: string;
    readonly path: string;
  }

  export type Watcher = (event: Event) => void;

  export interface ClientOptions {
    /** Requested session timeout, ms. Default 30000. */
    sessionTimeout?: number;
    /** Upper bound of the random pause before another round of servers, ms. Default 1000. */
    spinDelay?: number;
    /** Retries of an operation after CONNECTION_LOSS. Default 0. */
    retries?: number;
  }

  export interface Client extends EventEmitter {
    connect(): void;
    close(): void;
    getState(): State;
    getSessionId(): Buffer;
    getSessionTimeout(): number;
    create(
      path: string,
      data: Buffer | null,
      mode: number,
      callback: (error: Exception | null, path: string) => void,
    ): void;
    create(
      path: string,
      data: Buffer | null,
      acls: ACL[],
      mode: number,
      callback: (error: Exception | null, path: string) => void,
    ): void;
    /** Adds credentials to the session, sent again after every reconnect. */
    addAuthInfo(scheme: string, auth: Buffer): void;
    getACL(path: string, callback: (error: Exception | null, acls: ACL[], stat: Stat) => void): void;
    remove(path: string, version: number, callback: (error: Exception | null) => void): void;
    setData(
      path: string,
      data: Buffer | null,
      version: number,
      callback: (error: Exception | null, stat: Stat) => void,
    ): void;
    getData(path: string, callback: (error: Exception | null, data: Buffer | undefined, stat: Stat) => void): void;
    getData(
      path: string,
      watcher: Watcher,
      callback: (error: Exception | null, data: Buffer | undefined, stat: Stat) => void,
    ): void;
    exists(path: string, watcher: Watcher, callback: (error: Exception | null, stat: Stat | null) => void): void;
    getChildren(path: string, callback: (error: Exception | null, children: string[], stat: Stat) => void): void;
    mkdirp(path: string, callback: (error: Exception | null, path: string) => void): void;
    on(
      event: 'connected' | 'disconnected' | 'expired' | 'authenticationFailed' | 'connectedReadOnly',
      listener: () => void,
    ): this;
    on(event: 'state', listener: (state: State) => void): this;
  }

  export function createClient(connectionString: string, options?: ClientOptions): Client;
}

import * as zmq from 'zeromq';

/** One request the receiver took, decoded as docs/delivery.md ("The ZeroMQ push gateway") says. */
export interface ZmqPushRequest {
  requestId: number;
  idempotencyKey: string;
  taskId: number;
  atLogin: boolean;
  displayAt: number | null;
  content: unknown;
  contents?: unknown[];
  uins: number[];
}

/**
 * How the receiver answers one request: accept (naming the recipients refused
 * for good), throttle, fail, refuse the batch, never answer (`hang`), or send
 * these raw frames after the peer's routing id (`garbage`: a broken service).
 */
export type ZmqPushAnswer =
  | { kind: 'accept'; rejected?: Array<{ uin: number; reason: string }> }
  | { kind: 'throttle'; retryAfterMs?: number }
  | { kind: 'fail'; reason: string }
  | { kind: 'refuse'; reason: string }
  | { kind: 'hang' }
  | { kind: 'garbage'; frames: Buffer[] };

/** Decides the answer to a request once the script is used up (the default accepts). */
export type ZmqPushPolicy = (request: ZmqPushRequest) => ZmqPushAnswer;

export interface ZmqPushReceiverOptions {
  /** Bind address. @defaultValue 'tcp://127.0.0.1:*' (a free port) */
  endpoint?: string;
  /** Serve CURVE with this key pair (Z85); absent: no security, for `curve: false` gateways. */
  curve?: { publicKey: string; secretKey: string };
  /** With `curve`: admit only clients with these public keys (Z85), as a service's ZAP handler would; absent: any. */
  allowedClientKeys?: readonly string[];
}

/**
 * The reference push service for the ZeroMQ channel: a ROUTER (a CURVE server
 * when given keys) that decodes every request frame by frame as the contract
 * says, independently of the gateway's own encoder, and answers each with
 * the next scripted answer, then as its policy says (accept unless
 * `answerBy` set one). Only accepted requests count as received, less the
 * recipients they rejected. It runs in a zeromq context of its own, so the
 * ZAP handler Herald's tiers bind in the default context does not judge its
 * clients: its own (with `allowedClientKeys`) does, or none and any client
 * with the server's public key is admitted.
 */
export class ZmqPushReceiver {
  readonly requests: ZmqPushRequest[] = [];
  readonly accepted: ZmqPushRequest[] = [];
  /** Requests whose frames did not follow the contract (the receiver answers none of them). */
  readonly unreadable: string[] = [];
  private readonly script: ZmqPushAnswer[] = [];
  private policy: ZmqPushPolicy = () => ({ kind: 'accept' });
  private sending: Promise<void> = Promise.resolve();

  private constructor(
    private readonly socket: zmq.Router,
    private readonly zap: zmq.Reply | undefined,
    /** The bound address, port resolved. */
    readonly endpoint: string,
    /** The server's public key, when CURVE is on. */
    readonly publicKey: string | undefined,
  ) {}

  static async start(options: ZmqPushReceiverOptions = {}): Promise<ZmqPushReceiver> {
    const context = new zmq.Context();
    const zap =
      options.curve !== undefined && options.allowedClientKeys !== undefined
        ? await startZap(context, new Set(options.allowedClientKeys))
        : undefined;
    const socket = new zmq.Router({ context, linger: 0, receiveHighWaterMark: 0, sendHighWaterMark: 0 });
    if (options.curve !== undefined) {
      socket.curveServer = true;
      socket.curveSecretKey = options.curve.secretKey;
    }
    await socket.bind(options.endpoint ?? 'tcp://127.0.0.1:*');
    const receiver = new ZmqPushReceiver(socket, zap, socket.lastEndpoint!, options.curve?.publicKey);
    void receiver.serve();
    return receiver;
  }

  /** Answers the next requests with these, in order. */
  answer(...answers: ZmqPushAnswer[]): void {
    this.script.push(...answers);
  }

  /** Answers every request after the script as `policy` decides. */
  answerBy(policy: ZmqPushPolicy): void {
    this.policy = policy;
  }

  /** Every recipient accepted so far, per task, ascending (a recipient delivered twice appears twice). */
  uinsOf(taskId: number): number[] {
    return this.accepted
      .filter((request) => request.taskId === taskId)
      .flatMap((request) => request.uins)
      .sort((a, b) => a - b);
  }

  async stop(): Promise<void> {
    this.socket.close();
    this.zap?.close();
    await this.sending.catch(() => undefined);
  }

  private async serve(): Promise<void> {
    for (;;) {
      let frames: Buffer[];
      try {
        frames = await this.socket.receive();
      } catch {
        return; // closed
      }
      const [routingId, ...message] = frames;
      const request = decodeRequest(message);
      if (typeof request === 'string') {
        this.unreadable.push(request);
        continue;
      }
      this.requests.push(request);
      const answer = this.script.shift() ?? this.policy(request);
      if (answer.kind === 'hang') continue;
      if (answer.kind === 'accept') {
        const rejected = new Set((answer.rejected ?? []).map((r) => r.uin));
        this.accepted.push({ ...request, uins: request.uins.filter((uin) => !rejected.has(uin)) });
      }
      this.reply([routingId!, ...framesOf(answer, message[1]!)]);
    }
  }

  /** One send at a time (a zeromq socket allows no more); a peer gone meanwhile drops the answer. */
  private reply(frames: Buffer[]): void {
    this.sending = this.sending.then(() => this.socket.send(frames).catch(() => undefined));
  }
}

/**
 * A ZAP handler (ZMQ RFC 27) for the receiver's context: admits a CURVE
 * client whose public key is in `allowed`, refuses the rest (their requests
 * never arrive).
 */
async function startZap(context: zmq.Context, allowed: ReadonlySet<string>): Promise<zmq.Reply> {
  const socket = new zmq.Reply({ context, linger: 0 });
  await socket.bind('inproc://zeromq.zap.01');
  void (async () => {
    for (;;) {
      let request: Buffer[];
      try {
        request = await socket.receive();
      } catch {
        return; // closed
      }
      const [, id = Buffer.alloc(0), , , , mechanism, credential] = request;
      const admitted = mechanism?.toString() === 'CURVE' && credential?.length === 32 && allowed.has(z85(credential));
      const reply = admitted ? ['200', 'OK'] : ['400', 'client key not allowed'];
      await socket.send(['1.0', id, ...reply, '', '']).catch(() => undefined);
    }
  })();
  return socket;
}

const Z85 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';

/** Z85 (ZMQ RFC 32) of bytes whose length is a multiple of 4: how CURVE keys are written. */
function z85(bytes: Buffer): string {
  let text = '';
  for (let at = 0; at < bytes.length; at += 4) {
    let value = bytes.readUInt32BE(at);
    let group = '';
    for (let i = 0; i < 5; i++) {
      group = Z85[value % 85]! + group;
      value = Math.floor(value / 85);
    }
    text += group;
  }
  return text;
}

/** The acknowledge frames after the routing id: "1" | request id | status | detail. */
function framesOf(answer: Exclude<ZmqPushAnswer, { kind: 'hang' }>, requestId: Buffer): Buffer[] {
  const ack = (status: string, detail: string) => [
    Buffer.from('1'),
    requestId,
    Buffer.from(status),
    Buffer.from(detail),
  ];
  switch (answer.kind) {
    case 'accept':
      return ack('accepted', answer.rejected?.length ? JSON.stringify({ rejected: answer.rejected }) : '');
    case 'throttle':
      return ack('throttled', answer.retryAfterMs === undefined ? '' : String(answer.retryAfterMs));
    case 'fail':
      return ack('failed', answer.reason);
    case 'refuse':
      return ack('refused', answer.reason);
    case 'garbage':
      return answer.frames;
  }
}

/** A request as the contract lays it out, or why it does not. */
function decodeRequest(frames: Buffer[]): ZmqPushRequest | string {
  if (frames.length !== 5) return `${frames.length} frames, not 5`;
  const [version, id, key, header, uins] = frames as [Buffer, Buffer, Buffer, Buffer, Buffer];
  if (version.toString() !== '1') return `version ${version.toString()}`;
  if (id.length !== 4) return `request id of ${id.length} bytes`;
  if (uins.length % 4 !== 0) return `uins frame of ${uins.length} bytes`;
  let fields: Omit<ZmqPushRequest, 'requestId' | 'idempotencyKey' | 'uins'>;
  try {
    fields = JSON.parse(header.toString('utf8')) as typeof fields;
  } catch {
    return 'header is not JSON';
  }
  const list: number[] = [];
  for (let at = 0; at < uins.length; at += 4) list.push(uins.readUInt32LE(at));
  return { ...fields, requestId: id.readUInt32LE(0), idempotencyKey: key.toString('utf8'), uins: list };
}

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver took: its headers and parsed JSON body. */
export interface WebhookRequest {
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** What the receiver answers a request with; `hang` never answers (a timeout). */
export type WebhookAnswer = { status: number; body?: string; headers?: Record<string, string> } | 'hang';

/** Decides the answer to a request once the script is used up (the default answers 200). */
export type WebhookPolicy = (request: WebhookRequest) => WebhookAnswer;

/**
 * A push service's webhook for tests, on 127.0.0.1: records every request and
 * answers each with the next scripted answer, then as its policy says (200
 * unless `answerBy` set one). Only requests answered 2xx count as received.
 */
export class WebhookReceiver {
  readonly requests: WebhookRequest[] = [];
  readonly accepted: WebhookRequest[] = [];
  private readonly script: WebhookAnswer[] = [];
  private readonly hanging = new Set<() => void>();
  private policy: WebhookPolicy = () => ({ status: 200 });

  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => receiver.handle(request, Buffer.concat(chunks).toString('utf8'), response));
    });
    // The request handler above reads it only once a request arrives, after this line.
    const receiver = new WebhookReceiver(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/deliveries`;
  }

  /** Answers the next requests with these, in order. */
  answer(...answers: WebhookAnswer[]): void {
    this.script.push(...answers);
  }

  /** Answers every request after the script as `policy` decides (a throttling or rejecting receiver). */
  answerBy(policy: WebhookPolicy): void {
    this.policy = policy;
  }

  async stop(): Promise<void> {
    for (const release of this.hanging) release();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: IncomingMessage, text: string, response: import('node:http').ServerResponse): void {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    const entry = { headers: request.headers, body };
    this.requests.push(entry);
    const answer = this.script.shift() ?? this.policy(entry);
    if (answer === 'hang') {
      const release = () => response.destroy();
      this.hanging.add(release);
      response.on('close', () => this.hanging.delete(release));
      return;
    }
    if (answer.status >= 200 && answer.status < 300) this.accepted.push(entry);
    response.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers }).end(answer.body ?? '');
  }
}

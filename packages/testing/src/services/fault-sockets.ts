import net from 'node:net';
import tls from 'node:tls';

/** What kafkajs hands its `socketFactory` (kafkajs `ISocketFactoryArgs`), without importing kafkajs here. */
export interface SocketFactoryArgs {
  host: string;
  port: number;
  ssl?: tls.ConnectionOptions | null;
  onConnect: () => void;
}

/** Same as kafkajs's default factory. */
const KEEP_ALIVE_DELAY_MS = 60_000;

/**
 * Broker faults without restarting the broker: a kafkajs `socketFactory` that
 * opens ordinary net/tls sockets but keeps track of them, so a test can cut
 * every connection at once (each open socket is destroyed with ECONNRESET, as
 * when a broker's host drops off the network) and keep new connections
 * failing (ECONNREFUSED) until `restore()`. The broker keeps its data, which a
 * restart of librdkafka's in-memory mock cluster would lose.
 *
 * @example
 *   const sockets = new FaultySockets();
 *   const bus = await KafkaEventBus.connect({ brokers, clientId: 't', socketFactory: sockets.socketFactory });
 *   sockets.cut();
 *   await waitFor(() => sockets.refused > 0);   // the clients noticed and tried to reconnect
 *   sockets.restore();
 */
export class FaultySockets {
  private readonly live = new Set<net.Socket>();
  private down = false;
  private readonly counts = { opened: 0, destroyed: 0, refused: 0, cuts: 0 };

  readonly socketFactory = ({ host, port, ssl, onConnect }: SocketFactoryArgs): net.Socket => {
    if (this.down) {
      this.counts.refused++;
      const socket = new net.Socket();
      const error = Object.assign(
        new Error(`connect ECONNREFUSED ${host}:${port} (FaultySockets: connections are cut)`),
        { code: 'ECONNREFUSED' },
      );
      process.nextTick(() => socket.destroy(error));
      return socket;
    }
    const socket = ssl
      ? tls.connect({ host, port, ...(net.isIP(host) ? {} : { servername: host }), ...ssl }, onConnect)
      : net.connect({ host, port }, onConnect);
    socket.setKeepAlive(true, KEEP_ALIVE_DELAY_MS);
    this.counts.opened++;
    this.live.add(socket);
    socket.once('close', () => this.live.delete(socket));
    return socket;
  };

  /** Destroys every open connection and makes new ones fail until `restore()`. Returns how many it destroyed. */
  cut(): number {
    this.down = true;
    this.counts.cuts++;
    const victims = [...this.live];
    this.live.clear();
    for (const socket of victims) {
      socket.destroy(
        Object.assign(new Error('read ECONNRESET (FaultySockets: connection cut)'), { code: 'ECONNRESET' }),
      );
    }
    this.counts.destroyed += victims.length;
    return victims.length;
  }

  /** Lets new connections through again. */
  restore(): void {
    this.down = false;
  }

  get isCut(): boolean {
    return this.down;
  }

  /** Connections open right now. */
  get open(): number {
    return this.live.size;
  }

  get opened(): number {
    return this.counts.opened;
  }

  /** Connections destroyed by `cut()`, in all. */
  get destroyed(): number {
    return this.counts.destroyed;
  }

  /** Connection attempts refused while cut, in all. */
  get refused(): number {
    return this.counts.refused;
  }

  get cuts(): number {
    return this.counts.cuts;
  }
}

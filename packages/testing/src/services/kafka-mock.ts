import type { ChildProcess } from 'node:child_process';
import { spawn, stopProcess } from './process-util';

/**
 * A Kafka-protocol broker for tests: librdkafka's mock cluster, run through
 * Debian's `kcat`. It speaks the Kafka wire protocol to kafkajs (produce,
 * consume, consumer groups) with 3 brokers, keeps everything in memory and
 * auto-creates topics. To test broker faults, put a TcpProxy between the
 * client and it instead of restarting it (a restart would lose the data), or
 * freeze it.
 */
export class TestKafka {
  private frozen = false;

  private constructor(
    private readonly child: ChildProcess,
    /** ["127.0.0.1:p1", "127.0.0.1:p2", "127.0.0.1:p3"] */
    readonly brokers: string[],
  ) {}

  static start(brokers = 3): Promise<TestKafka> {
    const child = spawn(
      'kcat',
      ['-C', '-t', 'herald-boot', '-X', `test.mock.num.brokers=${brokers}`, '-d', 'mock', '-b', 'localhost:1'],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    return new Promise((resolve, reject) => {
      let stderr = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`kcat mock cluster printed no bootstrap.servers within 15 s: ${stderr.slice(-500)}`));
      }, 15_000);
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(new Error(`cannot run kcat (Debian package kcat): ${error.message}`));
      });
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /bootstrap\.servers=([0-9.:,]+)/.exec(stderr);
        if (match) {
          clearTimeout(timer);
          child.stderr!.removeAllListeners('data');
          child.stderr!.resume(); // keep draining its debug output
          resolve(new TestKafka(child, match[1]!.split(',')));
        }
      });
    });
  }

  /**
   * Freezes the whole mock cluster (SIGSTOP): it accepts no request and answers
   * none, and every open connection stays open and silent, as when a broker's
   * host drops off the network. Its data is kept; `thaw()` lets it answer again.
   * For fault tests of clients in other processes, where FaultySockets cannot reach.
   */
  freeze(): void {
    this.child.kill('SIGSTOP');
    this.frozen = true;
  }

  thaw(): void {
    this.child.kill('SIGCONT');
    this.frozen = false;
  }

  stop(): Promise<void> {
    if (this.frozen) this.thaw(); // a stopped process would not act on SIGTERM
    return stopProcess(this.child);
  }
}

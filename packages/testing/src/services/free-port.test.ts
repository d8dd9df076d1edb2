import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { freePort } from './free-port';

const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('freePort', () => {
  it('hands out distinct ports below the ephemeral range, each of which can be bound', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 50; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(50);
    for (const port of ports) expect(port).toBeLessThan(ephemeralLow);
    const servers = await Promise.all(ports.map(listen));
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });
});

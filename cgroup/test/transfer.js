// A TCP transfer for the bandwidth test (cgroup.test.ts), run with node inside network namespaces:
//   node transfer.js receive <host> <port> <windowMs>  listens (prints "listening"), takes one
//     connection, counts the bytes that arrive in the <windowMs> after the first one, prints
//     {"bytes":N,"ms":M} and exits;
//   node transfer.js send <host> <port>  writes as fast as the socket takes until the peer closes.
'use strict';
const net = require('node:net');
const [mode, host, port, windowMs] = process.argv.slice(2);

if (mode === 'receive') {
  const server = net.createServer((socket) => {
    server.close();
    let bytes = 0;
    let started;
    socket.on('data', (chunk) => {
      if (started === undefined) {
        started = process.hrtime.bigint();
        setTimeout(() => {
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          process.stdout.write(`${JSON.stringify({ bytes, ms })}\n`);
          socket.destroy();
          process.exit(0);
        }, Number(windowMs));
      }
      bytes += chunk.length;
    });
  });
  server.listen(Number(port), host, () => process.stdout.write('listening\n'));
} else if (mode === 'send') {
  const chunk = Buffer.alloc(64 * 1024, 7);
  const socket = net.connect(Number(port), host, () => {
    const pump = () => {
      while (socket.write(chunk));
    };
    socket.on('drain', pump);
    pump();
  });
  socket.on('error', () => process.exit(0)); // the receiver closed: done
  socket.on('close', () => process.exit(0));
} else {
  process.stderr.write('usage: transfer.js receive <host> <port> <windowMs> | send <host> <port>\n');
  process.exit(2);
}

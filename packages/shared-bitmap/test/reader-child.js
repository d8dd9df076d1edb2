/**
 * A reader in another process, driven over IPC by cross-process.test.ts.
 * Requires the compiled package (dist/), as an executor would.
 *
 *   { cmd: 'open', path, uinLimit }  -> { opened: uinLimit }
 *   { cmd: 'touch' }                 -> { touched: pages, online }  reads one word in every page
 *   { cmd: 'watch', uin }            -> { seen: uin } as soon as the uin reads online
 *   { cmd: 'exit' }                  closes the reader and exits
 * Errors are reported as { error: { message, code, reason } }.
 *
 * With argv[2] = 'store-through-mapping <path>', it maps <path> read-only
 * with the addon and stores into it: the process must die of SIGSEGV.
 */
const path = require('node:path');

const dist = path.join(__dirname, '..', 'dist');

if (process.argv[2] === 'store-through-mapping') {
  const { native } = require(path.join(dist, 'native.js'));
  const words = new Uint32Array(native().map(process.argv[3], 0, 0));
  words[words.length - 1] = 0xffffffff;
  console.log('stored through a read-only mapping');
  process.exit(0);
}

const { SharedOnlineBitmap } = require(dist);

/** Bits per 4096-byte page of words. */
const BITS_PER_PAGE = 4096 * 8;
let reader;

function reply(message) {
  process.send(message);
}

process.on('message', (message) => {
  try {
    if (message.cmd === 'open') {
      reader = SharedOnlineBitmap.openReader(message.path, message.uinLimit);
      reply({ opened: reader.uinLimit });
    } else if (message.cmd === 'touch') {
      const pages = Math.ceil(reader.uinLimit / BITS_PER_PAGE);
      const uins = new Uint32Array(pages);
      for (let i = 0; i < pages; i++) uins[i] = i * BITS_PER_PAGE;
      const { online } = reader.partition(uins, new Uint32Array(pages), new Uint32Array(pages));
      reply({ touched: pages, online });
    } else if (message.cmd === 'watch') {
      const poll = () => (reader.isOnline(message.uin) ? reply({ seen: message.uin }) : setTimeout(poll, 1));
      reply({ watching: message.uin });
      poll();
    } else if (message.cmd === 'exit') {
      reader?.close();
      process.disconnect();
    }
  } catch (error) {
    reply({ error: { message: error.message, code: error.code, reason: error.reason } });
  }
});

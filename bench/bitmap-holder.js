/**
 * One process of bench/presence-offline.js's memory step, driven over IPC:
 * the host's presence writer or one of its executors' readers, holding the
 * shared online bitmap (@herald/shared-bitmap, compiled) the way those
 * processes do, and nothing else (no executor code: a real executor's own heap
 * is bench/production.js's per-process figure).
 *
 *   { cmd: 'write', path, uinLimit, online } -> { ready: { share } }
 *       creates the bitmap, fills it with `online` of the uins at random
 *       (bench/bitmap.js fillOnline, pwrite on the file) and sets one bit per
 *       page through its own mapping, so every page is mapped in the writer as
 *       an agent that applied logins all over the uin space has it
 *   { cmd: 'read', path, uinLimit }          -> { ready: { online } }
 *       maps it read-only and counts the online bits (reads every page)
 *   { cmd: 'exit' }                          unmaps and exits
 *
 * A failure is answered { error: message }.
 */
const { SharedOnlineBitmap } = require('@herald/shared-bitmap');
const { fillOnline } = require('./bitmap');

/** Bits per 4096-byte page of words. */
const BITS_PER_PAGE = 4096 * 8;
let held;

process.on('message', (message) => {
  try {
    if (message.cmd === 'write') {
      held = SharedOnlineBitmap.openWriter(message.path, message.uinLimit);
      const share = fillOnline(message.path, Math.ceil(message.uinLimit / 32), message.online);
      for (let uin = 0; uin < message.uinLimit; uin += BITS_PER_PAGE) held.setOnline(uin, true);
      process.send({ ready: { share } });
    } else if (message.cmd === 'read') {
      held = SharedOnlineBitmap.openReader(message.path, message.uinLimit);
      process.send({ ready: { online: held.countOnline() } });
    } else if (message.cmd === 'exit') {
      held?.close();
      process.disconnect();
    }
  } catch (error) {
    process.send({ error: String(error?.stack ?? error) });
  }
});

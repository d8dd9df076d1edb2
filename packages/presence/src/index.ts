/**
 * @module @herald/presence
 *
 * The presence agent, one per host: follows the presence topic (login and
 * logout events) into the host's online bitmap, in event-time order, and
 * tells the host's executors who came online so they deliver those users'
 * offline lists. docs/presence.md.
 *
 * @example
 *   const agent = await startPresenceAgent({
 *     id: 'presence-1', bus, bitmap, generation,
 *     notifyLogins: async (uins) => { for (const e of executors) e.send({ kind: 'user.logins', uins }); },
 *   });
 *   // ...
 *   await agent.close();
 */
export { startPresenceAgent, DEFAULT_ORDER } from './agent';
export type { PresenceAgent, PresenceAgentDeps } from './agent';
export { readPresenceEvent } from './presence-event';
export type { PresenceEventValue, PresenceChange } from './presence-event';
export {
  signPresenceEvent,
  signedBytes,
  checkSignature,
  presenceKey,
  SIGNED_VERSION,
  MIN_KEY_BYTES,
} from './presence-signature';
export type { SignatureCheck } from './presence-signature';
export { bitmapGeneration, renewGeneration } from './generation';
export { createLoginNotifier } from './login-notifier';
export type { LoginChannel, LoginNotifierOptions } from './login-notifier';

/**
 * A presence event on the presence topic, as login services publish it:
 * key = the uin as a decimal string, value = JSON. docs/presence.md describes
 * the topic. One reader per version of the value (v1.ts, v2.ts); the value's
 * `v` field picks it, absent meaning 1. Another `v` is malformed, by name, so
 * the agent counts and skips it like any other malformed event: an event from
 * a newer login service is never half-read (docs/operations.md, "Wire versions").
 */
import type { PresenceChange } from './types';
import * as v1 from './v1';
import * as v2 from './v2';

export type { PresenceChange } from './types';

/** The value of any version this build reads. */
export interface PresenceEventValue {
  v?: 1 | 2;
  uin: number;
  online: boolean;
  at?: number;
  /** Version 2: hex HMAC-SHA256 of the event's signed bytes. */
  sig?: string;
}

const READERS = new Map([v1, v2].map((version) => [version.VERSION, version.read]));

/** The versions of the event value this build reads. */
export const PRESENCE_EVENT_VERSIONS: readonly number[] = [...READERS.keys()];

/** The change an event asks for, or the reason it is malformed. Never throws. */
export function readPresenceEvent(
  value: unknown,
  timestamp: number,
  uinLimit: number,
): PresenceChange | { malformed: string } {
  if (value === null || typeof value !== 'object') return { malformed: 'value is not an object' };
  const fields = value as Record<string, unknown>;
  const read = fields.v === undefined ? v1.read : typeof fields.v === 'number' ? READERS.get(fields.v) : undefined;
  if (read === undefined)
    return { malformed: `v ${v1.shown(fields.v)} is not a known version (${PRESENCE_EVENT_VERSIONS.join(' or ')})` };
  return read(fields, timestamp, uinLimit);
}

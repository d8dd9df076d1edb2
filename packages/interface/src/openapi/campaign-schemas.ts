/**
 * Schemas of the campaign answers' no-resend parts (docs/campaigns.md,
 * "No-resend scope"): a template's `noResend` and a firing's `note`.
 */
import { NO_RESEND_SCOPES } from '@herald/core/campaign';
import { object, type JsonSchema } from './schema-builders';

export const noResend: JsonSchema = object(
  {
    scope: { type: 'string', enum: [...NO_RESEND_SCOPES] },
    window: {
      type: 'string',
      pattern: '^[1-9][0-9]{0,5}[mhd]$',
      description: "scope window only: minutes, hours or days (calendar days in the campaign's zone), at most 366d",
    },
  },
  ['scope'],
  "what counts as already sent for a firing: 'content' every earlier send of the content (absent: this), 'firing' none before this firing, 'window' the sends within the window",
);

export const firingNote: JsonSchema = {
  ...object({ code: { type: 'string', enum: ['reached_nobody_already_sent'] }, message: { type: 'string' } }, [
    'code',
    'message',
  ]),
  type: ['object', 'null'],
  description:
    "what a fired firing came to, in words: 'reached_nobody_already_sent' when its task's no-resend filter removed everyone it had left; null otherwise",
};

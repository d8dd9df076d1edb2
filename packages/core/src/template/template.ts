/**
 * Personalised content: a task's body (and title) with per-user variables
 * filled from the user-attributes store, per recipient (docs/delivery.md,
 * "Personalised content").
 *
 * Grammar (whitespace inside the braces is ignored):
 *
 *   template    := ( text | placeholder )*
 *   placeholder := '{{' name ( '|' 'default' ':' string )? '}}'
 *   name        := one of TEMPLATE_VARIABLES (a campaign's content: FIRING_VARIABLES too)
 *   string      := '"' ( any character but '"' and '\' | '\"' | '\\' )* '"'
 *
 * `{{` always opens a placeholder; a `}}` outside one is plain text. A text is
 * parsed once per task (at creation, to refuse a bad one with its position,
 * and once more by each executor that delivers it) into literal parts and
 * slots; rendering a recipient is then a loop over those parts: no parsing,
 * no regular expression per recipient.
 */
import { TemplateError } from '../errors';
import type { UserAttributes } from '../targeting/attributes';

/** The variables a template may name: the user attributes the targeting store holds, and the uin. */
export const TEMPLATE_VARIABLES = ['uin', 'region', 'gender', 'ageBand', 'activeDay', 'tags'] as const;
export type TemplateVariable = (typeof TEMPLATE_VARIABLES)[number];

/** One user's value of a variable; undefined when the user has none (the default, or '', is used). */
type Reader = (uin: number, user: UserAttributes | undefined) => string | undefined;

const READERS: Record<TemplateVariable, Reader> = {
  uin: (uin) => String(uin),
  region: (_, user) => user?.region ?? undefined,
  gender: (_, user) => user?.gender ?? undefined,
  ageBand: (_, user) => user?.ageBand ?? undefined,
  // The UTC date of the last activity, YYYY-MM-DD.
  activeDay: (_, user) =>
    user?.activeAt === undefined || user.activeAt === null
      ? undefined
      : new Date(user.activeAt).toISOString().slice(0, 10),
  tags: (_, user) => (user?.tags === undefined || user.tags.length === 0 ? undefined : user.tags.join(', ')),
};

interface Slot {
  read: Reader;
  fallback: string;
}

/** A parsed template: `literals[i]` comes before `slots[i]`; one more literal than slots. */
export interface CompiledTemplate {
  readonly literals: readonly string[];
  readonly slots: readonly Slot[];
  /** True when the text has a placeholder: otherwise every recipient gets `literals[0]`. */
  readonly personal: boolean;
}

const NAME_START = /[A-Za-z]/;
const NAME_CHAR = /[A-Za-z0-9_.]/;

/** A placeholder as written: its variable, its default, and its text (kept by renderFiringVariables). */
export interface Placeholder {
  readonly name: string;
  readonly fallback: string;
  readonly source: string;
}

/** A text split at its placeholders: `literals[i]` comes before `placeholders[i]`; one more literal. */
export interface ScannedTemplate {
  readonly literals: readonly string[];
  readonly placeholders: readonly Placeholder[];
}

/** Parses a template; a malformed one throws TemplateError naming `field` and the position. */
export function parseTemplate(text: string, field = 'content.body'): CompiledTemplate {
  const { literals, placeholders } = scanTemplate(text, field, TEMPLATE_VARIABLES);
  const slots = placeholders.map(({ name, fallback }) => ({ read: READERS[name as TemplateVariable], fallback }));
  return { literals, slots, personal: slots.length > 0 };
}

/**
 * The grammar above over the variables `names` (a campaign's content may also
 * name the firing's, template/firing.ts); a malformed text, or a name not in
 * `names`, throws TemplateError naming `field` and the position.
 */
export function scanTemplate(text: string, field: string, names: readonly string[]): ScannedTemplate {
  const literals: string[] = [];
  const placeholders: Placeholder[] = [];
  let at = 0;
  let literal = '';
  const fail = (
    message: string,
    position: number,
    details: { found?: string; expected?: readonly string[] } = {},
  ): never => {
    throw new TemplateError(field, message, position, details);
  };
  const skipSpaces = () => {
    while (at < text.length && /\s/.test(text[at]!)) at++;
  };
  const expect = (token: string) => {
    skipSpaces();
    if (!text.startsWith(token, at))
      fail(at >= text.length ? `unexpected end, expected '${token}'` : `expected '${token}'`, at, {
        found: text.slice(at, at + token.length),
        expected: [token],
      });
    at += token.length;
  };
  while (at < text.length) {
    const open = text.indexOf('{{', at);
    if (open < 0) {
      literal += text.slice(at);
      break;
    }
    literal += text.slice(at, open);
    at = open + 2;
    skipSpaces();
    const nameAt = at;
    if (at >= text.length || !NAME_START.test(text[at]!))
      fail(at >= text.length ? 'unexpected end, expected a variable name' : 'expected a variable name', at, {
        found: text.slice(at, at + 1),
        expected: [...names],
      });
    while (at < text.length && NAME_CHAR.test(text[at]!)) at++;
    const name = text.slice(nameAt, at);
    if (!names.includes(name)) fail(`unknown variable '${name}'`, nameAt, { found: name, expected: [...names] });
    let fallback = '';
    skipSpaces();
    if (text[at] === '|') {
      at++;
      expect('default');
      expect(':');
      skipSpaces();
      [fallback, at] = readString(text, at, fail);
    }
    expect('}}');
    literals.push(literal);
    literal = '';
    placeholders.push({ name, fallback, source: text.slice(open, at) });
  }
  literals.push(literal);
  return { literals, placeholders };
}

function readString(
  text: string,
  start: number,
  fail: (message: string, position: number, details?: { found?: string; expected?: readonly string[] }) => never,
): [value: string, end: number] {
  if (text[start] !== '"')
    fail('expected a quoted default', start, { found: text.slice(start, start + 1), expected: ['"'] });
  let value = '';
  for (let at = start + 1; at < text.length; at++) {
    const c = text[at]!;
    if (c === '"') return [value, at + 1]; // end: one past the closing quote
    if (c === '\\') {
      const next = text[at + 1];
      if (next !== '"' && next !== '\\')
        fail(`unknown escape '\\${next ?? ''}' (only \\" and \\\\)`, at, { found: `\\${next ?? ''}` });
      value += next;
      at++;
    } else value += c;
  }
  return fail('unexpected end inside a quoted default', text.length);
}

/** One recipient's text: the literal parts with each slot's value (or its default, or '') between them. */
export function renderTemplate(template: CompiledTemplate, uin: number, user: UserAttributes | undefined): string {
  const { literals, slots } = template;
  let out = literals[0]!;
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i]!;
    out += (slot.read(uin, user) ?? slot.fallback) + literals[i + 1]!;
  }
  return out;
}

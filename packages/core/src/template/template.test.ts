import { isHeraldError, TemplateError } from '../errors';
import type { UserAttributes } from '../targeting/attributes';
import { taskContentOf } from '../task/content';
import type { NewTask } from '../task/model';
import { checkNewTask, newTaskRecord } from '../task/validate';
import { compileContent, renderContents } from './content';
import { parseTemplate, renderTemplate, TEMPLATE_VARIABLES } from './template';

const alice: UserAttributes = {
  uin: 7,
  region: 'gd',
  gender: 'f',
  ageBand: '25-34',
  activeAt: Date.UTC(2026, 10, 3, 12),
  tags: ['music', 'sport'],
};

function failure(text: string): TemplateError {
  try {
    parseTemplate(text);
  } catch (error) {
    if (error instanceof TemplateError) return error;
    throw error;
  }
  throw new Error(`'${text}' parsed`);
}

describe('parseTemplate and renderTemplate', () => {
  it('fills each variable from the user attributes', () => {
    const t = parseTemplate('Hi {{uin}} in {{region}} ({{ gender }}, {{ageBand}}), seen {{activeDay}}: {{tags}}.');
    expect(renderTemplate(t, 7, alice)).toBe('Hi 7 in gd (f, 25-34), seen 2026-11-03: music, sport.');
  });

  it('uses the default, or an empty string, where the user has no value or no record', () => {
    const t = parseTemplate('Hello {{region|default:"there"}}, {{ gender }}!{{tags | default : "no tags"}}');
    expect(renderTemplate(t, 1, undefined)).toBe('Hello there, !no tags');
    expect(renderTemplate(t, 1, { uin: 1, region: null, tags: [] })).toBe('Hello there, !no tags');
    expect(renderTemplate(t, 7, alice)).toBe('Hello gd, f!music, sport');
  });

  it('reads escapes in a default and keeps text without placeholders as is', () => {
    expect(renderTemplate(parseTemplate('{{region|default:"a \\"b\\" \\\\ c"}}'), 1, undefined)).toBe('a "b" \\ c');
    const plain = parseTemplate('no placeholders }} here { {');
    expect(plain.personal).toBe(false);
    expect(renderTemplate(plain, 1, alice)).toBe('no placeholders }} here { {');
  });

  it('two users get different text from one parse', () => {
    const t = parseTemplate('Hello {{region|default:"there"}}');
    expect([renderTemplate(t, 7, alice), renderTemplate(t, 8, { uin: 8, region: 'sh' })]).toEqual([
      'Hello gd',
      'Hello sh',
    ]);
  });

  it.each([
    ['Hello {{name}}', 8, "unknown variable 'name'"],
    ['Hello {{', 8, 'unexpected end'],
    ['Hello {{ }}', 9, 'expected a variable name'],
    ['{{region', 8, "expected '}}'"],
    ['{{region|dflt:"x"}}', 9, "expected 'default'"],
    ['{{region|default "x"}}', 17, "expected ':'"],
    ['{{region|default:x}}', 17, 'expected a quoted default'],
    ['{{region|default:"x}}', 21, 'unexpected end inside a quoted default'],
    ['{{region|default:"\\n"}}', 18, 'unknown escape'],
    ['{{region}} {{region extra}}', 20, "expected '}}'"],
  ])('refuses %j at position %i with a TemplateError', (text, position, message) => {
    const error = failure(text);
    expect(isHeraldError(error) && error.code).toBe('TEMPLATE_INVALID');
    expect(error.position).toBe(position);
    expect(error.details).toMatchObject({ field: 'content.body', position });
    expect(error.message).toContain(`position ${position}`);
    expect(error.message).toContain(message);
  });

  it('names the variables it knows in the error of an unknown one', () => {
    expect(failure('{{name}}').details.expected).toEqual([...TEMPLATE_VARIABLES]);
  });
});

describe('compileContent and renderContents', () => {
  it('renders body and title per recipient, in the order of the uins', () => {
    const compiled = compileContent({ body: 'Hi {{region|default:"you"}}', title: 'For {{uin}}', template: true });
    expect(renderContents(compiled, Uint32Array.of(7, 9), [alice, undefined])).toEqual([
      { body: 'Hi gd', title: 'For 7' },
      { body: 'Hi you', title: 'For 9' },
    ]);
  });

  it('names the title when the title is the bad one', () => {
    expect(() => compileContent({ body: 'ok', title: '{{nope}}', template: true })).toThrow(
      expect.objectContaining({
        code: 'TEMPLATE_INVALID',
        details: expect.objectContaining({ field: 'content.title' }),
      }),
    );
  });
});

describe('a template task in the TaskStore contract', () => {
  const base: NewTask = {
    accountId: 'a',
    listId: 'l',
    content: { body: 'Hi {{region}}', template: true },
    contentCrc: 1,
    priority: 'normal',
    sendAt: 0,
    expiresAt: 1,
    listCount: 1,
  };

  it('keeps the template flag in the stored record', () => {
    checkNewTask(base);
    expect(newTaskRecord(1, base, 0).content).toEqual({ body: 'Hi {{region}}', template: true });
    expect(taskContentOf({ body: 'x', extra: 1 } as never)).toEqual({ body: 'x' });
  });

  it('refuses a malformed template, and a template flag other than true', () => {
    expect(() => checkNewTask({ ...base, content: { body: 'Hi {{name}}', template: true } })).toThrow(TemplateError);
    expect(() => checkNewTask({ ...base, content: { body: 'Hi', template: 'yes' as never } })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
    // Without the flag the same text is plain content.
    expect(() => checkNewTask({ ...base, content: { body: 'Hi {{name}}' } })).not.toThrow();
  });
});

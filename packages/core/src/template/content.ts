import type { TaskContent } from '../task/model';
import type { UserAttributes } from '../targeting/attributes';
import { parseTemplate, renderTemplate, type CompiledTemplate } from './template';

/** A template task's content, parsed once: its body, and its title when it has one. */
export interface CompiledContent {
  readonly body: CompiledTemplate;
  readonly title?: CompiledTemplate;
}

/** Parses a template task's body and title; the first bad one throws TemplateError naming its field (`<field>.body`, `<field>.title`). */
export function compileContent(content: TaskContent, field = 'content'): CompiledContent {
  const body = parseTemplate(content.body, `${field}.body`);
  return content.title === undefined ? { body } : { body, title: parseTemplate(content.title, `${field}.title`) };
}

/**
 * Each recipient's content: `users[i]` holds the attributes of `uins[i]`
 * (undefined: the store has none, so every slot takes its default or '').
 */
export function renderContents(
  compiled: CompiledContent,
  uins: ArrayLike<number>,
  users: readonly (UserAttributes | undefined)[],
): TaskContent[] {
  const { body, title } = compiled;
  const out = new Array<TaskContent>(uins.length);
  for (let i = 0; i < uins.length; i++) {
    const uin = uins[i]!;
    const user = users[i];
    out[i] =
      title === undefined
        ? { body: renderTemplate(body, uin, user) }
        : { body: renderTemplate(body, uin, user), title: renderTemplate(title, uin, user) };
  }
  return out;
}

import { compileContent } from '@herald/core/template';
import { taskContentOf, type TaskContent } from '@herald/core/task';

/** A content as requests carry it: `template` true makes body and title templates (docs/delivery.md). */
export interface RequestContent {
  body: string;
  title?: string;
  template?: boolean;
}

/**
 * A request's content as a task keeps it (the template flag only when true).
 * A template is parsed now, before anything is held or stored: a bad one is
 * 422 TEMPLATE_INVALID naming `<field>.body` or `<field>.title` and the position.
 */
export function contentOfRequest(content: RequestContent, field = 'content'): TaskContent {
  const { body, title } = content;
  const kept = taskContentOf({
    body,
    ...(title === undefined ? {} : { title }),
    ...(content.template === true ? { template: true } : {}),
  });
  if (kept.template === true) compileContent(kept, field);
  return kept;
}

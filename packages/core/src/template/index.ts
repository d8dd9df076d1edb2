/**
 * @module @herald/core/template
 *
 * Personalised content (docs/delivery.md): templates parsed once per task, rendered per
 * recipient from the user's attributes.
 *
 * @example
 *   import { compileContent, renderContents } from '@herald/core/template';
 *   const contents = renderContents(compileContent(task.content), uins, users);
 */
export { parseTemplate, renderTemplate, TEMPLATE_VARIABLES } from './template';
export type { CompiledTemplate, TemplateVariable } from './template';
export { compileContent, renderContents } from './content';
export type { CompiledContent } from './content';

/**
 * @module @herald/core/template
 *
 * Personalised content (docs/delivery.md): templates parsed once per task, rendered per
 * recipient from the user's attributes; a campaign's firing variables, filled once per firing.
 *
 * @example
 *   import { compileContent, renderContents } from '@herald/core/template';
 *   const contents = renderContents(compileContent(task.content), uins, users);
 */
export { parseTemplate, renderTemplate, scanTemplate, TEMPLATE_VARIABLES } from './template';
export type { CompiledTemplate, TemplateVariable, Placeholder, ScannedTemplate } from './template';
export { FIRING_VARIABLES, renderFiringVariables, checkCampaignContent } from './firing';
export type { FiringVariable, FiringValues } from './firing';
export { compileContent, renderContents } from './content';
export type { CompiledContent } from './content';

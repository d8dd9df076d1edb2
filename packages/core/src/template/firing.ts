/*
 * Firing variables: a campaign's content may name `{{firing.date}}`,
 * `{{firing.time}}` and `{{firing.id}}` (docs/campaigns.md, "Firing
 * variables"). They are filled once per firing, when the controller creates
 * the firing's task, not per recipient: the task's content carries the
 * values, and its per-recipient placeholders, if any, stay as written.
 */
import type { TaskContent } from '../task/model';
import { scanTemplate, TEMPLATE_VARIABLES } from './template';

export const FIRING_VARIABLES = ['firing.date', 'firing.time', 'firing.id'] as const;
export type FiringVariable = (typeof FIRING_VARIABLES)[number];

/** One firing's values of the firing variables. */
export type FiringValues = Record<FiringVariable, string>;

const CAMPAIGN_VARIABLES: readonly string[] = [...TEMPLATE_VARIABLES, ...FIRING_VARIABLES];

/**
 * A campaign's template content with the firing's values in place of its
 * firing variables. Only a template content (`template: true`) has variables;
 * the result is a template content only while per-recipient placeholders
 * remain, so a firing of a content that named firing variables alone is sent
 * as plain text. A malformed text throws TemplateError naming `field`.
 */
export function renderFiringVariables(
  content: TaskContent,
  values: FiringValues,
  field = 'template.content',
): TaskContent {
  if (content.template !== true) return content;
  const body = renderText(content.body, values, `${field}.body`);
  const title = content.title === undefined ? undefined : renderText(content.title, values, `${field}.title`);
  const personal = body.personal || (title?.personal ?? false);
  return {
    body: body.text,
    ...(title === undefined ? {} : { title: title.text }),
    ...(personal ? { template: true } : {}),
  };
}

/** Checks that a campaign's template content parses with the firing variables (TemplateError naming `field`). */
export function checkCampaignContent(content: TaskContent, field = 'template.content'): void {
  if (content.template !== true) return;
  scanTemplate(content.body, `${field}.body`, CAMPAIGN_VARIABLES);
  if (content.title !== undefined) scanTemplate(content.title, `${field}.title`, CAMPAIGN_VARIABLES);
}

function renderText(text: string, values: FiringValues, field: string): { text: string; personal: boolean } {
  const { literals, placeholders } = scanTemplate(text, field, CAMPAIGN_VARIABLES);
  let out = literals[0]!;
  let personal = false;
  placeholders.forEach((placeholder, i) => {
    const value = values[placeholder.name as FiringVariable] as string | undefined;
    if (value === undefined) personal = true;
    out += (value ?? placeholder.source) + literals[i + 1]!;
  });
  return { text: out, personal };
}

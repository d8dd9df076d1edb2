import { type ApiError, query } from '../api/client';
import type { TemplatePreview } from '../api/types';
import { useTypedCheck } from '../hooks';

/** The template variables the server knows (core TEMPLATE_VARIABLES), shown as a hint. */
export const TEMPLATE_VARIABLES = ['uin', 'region', 'gender', 'ageBand', 'activeDay', 'tags'];

/**
 * What the sample recipient would receive, from the server (GET
 * /api/v1/templates/preview: the same parser and attributes that deliver the
 * task), a moment after the operator stops typing. A bad template comes back
 * as the server's message, with its position.
 */
export function useTemplatePreview(
  body: string,
  title: string,
  uin: string,
  enabled: boolean,
): { preview?: TemplatePreview; error?: ApiError; checking: boolean } {
  const params = { body, title: title.trim() === '' ? undefined : title, uin: uin.trim() === '' ? '0' : uin.trim() };
  return useTypedCheck<TemplatePreview>(
    enabled && body.trim() !== '' ? '/api/v1/templates/preview' + query(params) : undefined,
  );
}

/** Says whose attributes the preview used. */
export function previewSource(preview: TemplatePreview): string {
  if (preview.attributes === 'store') return `with the attributes of user ${preview.uin}`;
  if (preview.attributes === 'none') return `user ${preview.uin} has no attributes: every variable shows its default`;
  return 'with the defaults (only admin tokens preview a user’s attributes)';
}

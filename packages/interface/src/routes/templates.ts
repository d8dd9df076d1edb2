import { compileContent, renderTemplate } from '@herald/core/template';
import type { TaskContent } from '@herald/core/task';
import type { UserAttributes } from '@herald/core/targeting';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { principalOf } from '../access/request-access';

interface PreviewQuery {
  body: string;
  title?: string;
  uin: number;
}

const previewQuery = {
  type: 'object',
  required: ['body', 'uin'],
  additionalProperties: false,
  properties: {
    body: { type: 'string', minLength: 1, maxLength: 8192 },
    title: { type: 'string', maxLength: 256 },
    uin: { type: 'integer', minimum: 0, maximum: 2 ** 32 - 1 },
  },
} as const;

/**
 * A template's preview for one sample recipient (docs/delivery.md,
 * "Personalised content"): what `uin` would receive. It parses the template
 * as task creation does (422 TEMPLATE_INVALID with field and position), so
 * the console checks a template as it is typed. Only an admin's preview reads
 * the user's attributes (like GET /api/v1/user-attributes/:uin): an
 * operator's shows the defaults, so no operator reads a user's attributes
 * through it. `attributes` says which.
 */
export function templateRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.get<{ Querystring: PreviewQuery }>(
    '/api/v1/templates/preview',
    { schema: { querystring: previewQuery } },
    async (request) => {
      const { body, title, uin } = request.query;
      const compiled = compileContent(title === undefined ? { body, template: true } : { body, title, template: true });
      const attributes = deps.audiences?.attributes;
      const fromStore = attributes !== undefined && principalOf(request).role === 'admin';
      const user: UserAttributes | undefined = fromStore ? await attributes.getUser(uin) : undefined;
      const rendered: TaskContent = { body: renderTemplate(compiled.body, uin, user) };
      if (compiled.title !== undefined) rendered.title = renderTemplate(compiled.title, uin, user);
      return { uin, content: rendered, attributes: fromStore ? (user === undefined ? 'none' : 'store') : 'defaults' };
    },
  );
}

/**
 * The small builders the API's JSON Schemas are written with (components.ts,
 * account-schemas.ts, operations.ts): plain data, no library.
 */
import { ACCOUNT_ID_PATTERN } from '@herald/core/access';

export type JsonSchema = Record<string, unknown>;

/** `$ref` to a component of the document. */
export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

export const integer = (description: string, extra: JsonSchema = {}): JsonSchema => ({
  type: 'integer',
  description,
  ...extra,
});
export const epochMs = (description: string): JsonSchema => integer(`${description} (epoch ms)`, { minimum: 0 });
export const nullable = (type: string, description: string, extra: JsonSchema = {}): JsonSchema => ({
  type: [type, 'null'],
  description,
  ...extra,
});
export const object = (
  properties: Record<string, JsonSchema>,
  required: string[],
  description?: string,
): JsonSchema => ({
  type: 'object',
  ...(description === undefined ? {} : { description }),
  required,
  additionalProperties: false,
  properties,
});
/** A keyset page: `items` under `key`, and the cursor of the next page. */
export const page = (
  key: string,
  items: JsonSchema,
  cursorMeaning: string,
  cursorType: 'integer' | 'string' = 'integer',
): JsonSchema =>
  object(
    {
      [key]: { type: 'array', items },
      nextCursor: nullable(
        cursorType,
        `pass as \`cursor\` for the next page (${cursorMeaning}); null on the last page`,
      ),
    },
    [key, 'nextCursor'],
  );

export const accountId: JsonSchema = { type: 'string', pattern: ACCOUNT_ID_PATTERN.source, example: 'acme' };

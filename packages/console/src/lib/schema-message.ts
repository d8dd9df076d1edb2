/**
 * The field named by a schema-validation message, which says where the
 * request broke ("body/content/body must NOT have fewer than 1 characters",
 * "body must have required property 'listId'") but carries no field of its own.
 */
export function fieldOfSchemaMessage(message: string): string | undefined {
  const missing = /^(?:body|querystring) must have required property '([^']+)'/.exec(message);
  if (missing) return missing[1];
  const at = /^(?:body|querystring)\/([A-Za-z0-9_/]+) /.exec(message);
  return at ? at[1]!.split('/').join('.') : undefined;
}

/**
 * The well-known admin token of Herald's tests, benchmarks and local
 * clusters: give it to a cluster as `auth.bootstrapAdminToken` (stored hashed
 * at start) and send it as `Authorization: Bearer <token>`. Public in this
 * repository, so never for a deployment anyone else can reach.
 */
export const TEST_ADMIN_TOKEN = 'hrd_testadmin_herald-test-admin-secret-0123456789';

/** The `auth` options that make TEST_ADMIN_TOKEN an admin of the cluster they configure. */
export const TEST_AUTH_OPTIONS = { bootstrapAdminToken: TEST_ADMIN_TOKEN } as const;

/** The Authorization header for `token` (the test admin by default). */
export function authHeaders(token: string = TEST_ADMIN_TOKEN): { authorization: string } {
  return { authorization: `Bearer ${token}` };
}

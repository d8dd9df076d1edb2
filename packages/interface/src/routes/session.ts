import type { AuthConfig } from '@herald/core/config';
import type { Clock } from '@herald/core/ports';
import type { FastifyInstance } from 'fastify';
import type { Admission } from '../access/guard';
import { cameOverTls, clearedSessionCookie, sessionCookie } from '../access/session-cookie';
import type { TokenVerifier } from '../access/verifier';

interface SessionBody {
  token: string;
  keep?: boolean;
}

export interface SessionRouteDeps {
  auth: AuthConfig;
  clock: Clock;
  verifier: TokenVerifier;
  admission: Admission;
}

/**
 * The console's sign-in and sign-out (docs/security.md, "Console sessions").
 *
 * POST /api/v1/session checks the token as the guard checks a bearer token
 * (the same 401 for a bad one, the same rate limit, audited as the token's
 * own request), answers who it is, like GET /api/v1/me, and sets the
 * HttpOnly session cookie: for the browser's life, or for
 * auth.sessionMaxAgeMs when `keep` is true.
 *
 * DELETE /api/v1/session clears the cookie. It needs no caller: a browser
 * whose token was revoked must still be able to forget it.
 */
export function sessionRoutes(app: FastifyInstance, deps: SessionRouteDeps): void {
  const { auth, clock, verifier, admission } = deps;

  app.post<{ Body: SessionBody }>(
    '/api/v1/session',
    {
      schema: {
        body: {
          type: 'object',
          required: ['token'],
          additionalProperties: false,
          properties: {
            token: { type: 'string', minLength: 1, maxLength: 256 },
            keep: { type: 'boolean' },
          },
        },
      },
    },
    async (request, reply) => {
      const principal = await verifier.verify(request.body.token, clock.now());
      if (principal === undefined) throw admission.invalidToken();
      admission.admit(request, principal);
      const maxAgeMs = request.body.keep === true ? auth.sessionMaxAgeMs : undefined;
      const cookie = sessionCookie(request.body.token, {
        secure: cameOverTls(request),
        ...(maxAgeMs === undefined ? {} : { maxAgeMs }),
      });
      const { tokenId, name, role, accounts } = principal;
      return reply.header('set-cookie', cookie).header('cache-control', 'no-store').send({
        tokenId,
        name,
        role,
        accounts,
      });
    },
  );

  app.delete('/api/v1/session', async (request, reply) =>
    reply
      .code(204)
      .header('set-cookie', clearedSessionCookie(cameOverTls(request)))
      .send(),
  );
}

import { ErrorCodes, HeraldError } from '@herald/core';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { assertAdmin, noteAudit } from '../access/request-access';

interface LimitsBody {
  minRate?: number;
  maxRate?: number;
}

/**
 * The paced delivery channels' limits, changed at run time without a
 * restart (docs/delivery.md, "Limits at run time"); admin-only. Served by
 * every profile; only a process whose channels run in it (embedded) has any.
 */
export function channelRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/api/v1/channels', async (request) => {
    assertAdmin(request);
    return { channels: deps.channels?.list() ?? [] };
  });

  app.put<{ Params: { channel: string }; Body: LimitsBody }>(
    '/api/v1/channels/:channel/limits',
    {
      schema: {
        body: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: {
            minRate: { type: 'integer', minimum: 1 },
            maxRate: { type: 'integer', minimum: 1 },
          },
        },
      },
    },
    async (request) => {
      assertAdmin(request);
      const { channel } = request.params;
      const changed = deps.channels?.setLimits(channel, request.body);
      if (changed === undefined)
        throw new HeraldError(ErrorCodes.NOT_FOUND, `no paced delivery channel named ${channel} in this process`, {
          details: { channel },
        });
      noteAudit(request, { resource: `channel:${channel}` });
      return changed;
    },
  );
}

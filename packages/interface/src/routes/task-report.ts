import { Readable } from 'node:stream';
import { ValidationError } from '@herald/core';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { assertReportable, csvLinesOf, ndjsonLines, reportChunks } from '../recipient-report';
import { visibleTask } from './visible-task';

export const NDJSON = 'application/x-ndjson';

/**
 * GET /api/v1/tasks/:id/report: every recipient of the task's audience with
 * its fate, streamed as CSV or (Accept: application/x-ndjson) one JSON object
 * a line, in ascending uin order; `cursor=<taskId>-<uin>` resumes after that
 * uin. Found and refused as GET /api/v1/tasks/:id/recipients/:uin is, before
 * the first byte: once the body streams, a failure ends it early (the client
 * resumes from its last row).
 */
export function taskReportRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const { store, config } = deps;
  app.get<{ Params: { id: string }; Querystring: { cursor?: string } }>(
    '/api/v1/tasks/:id/report',
    {
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { cursor: { type: 'string', maxLength: 64 } },
        },
      },
    },
    async (request, reply) => {
      const task = await visibleTask(request, store, request.params.id);
      const after = parseReportCursor(request.query.cursor, task.id, config.uinLimit);
      assertReportable(task);
      const ndjson = (request.headers.accept ?? '').includes(NDJSON);
      const lines = ndjson ? ndjsonLines(task.id) : csvLinesOf(task);
      const body = reportChunks(task, after, { ...deps, uinLimit: config.uinLimit }, lines);
      const extension = ndjson ? 'ndjson' : 'csv';
      return reply
        .type(ndjson ? NDJSON : 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="task-${task.id}-report.${extension}"`)
        .send(Readable.from(body));
    },
  );
}

/**
 * `<taskId>-<uin>`: resume after that uin. A cursor of another task, or a
 * uin outside the uin space, is refused naming `cursor`.
 */
export function parseReportCursor(raw: string | undefined, taskId: number, uinLimit: number): number | undefined {
  if (raw === undefined) return undefined;
  const match = /^([1-9][0-9]{0,15})-(0|[1-9][0-9]{0,15})$/.exec(raw);
  const bad = (why: string) => new ValidationError(`cursor '${raw.slice(0, 64)}' ${why}`, { field: 'cursor', taskId });
  if (match === null) throw bad('is not <taskId>-<uin>');
  if (Number(match[1]) !== taskId) throw bad(`names task ${match[1]}, not task ${taskId}`);
  const uin = Number(match[2]);
  if (!Number.isSafeInteger(uin) || uin >= uinLimit) throw bad(`names a uin outside [0, ${uinLimit})`);
  return uin;
}

/*
 * GET /api/v1/cluster's answer: the APTA members as the answering process sees
 * them, the ring it routes by, and (embedded) each executor's last load report.
 */
import { epochMs, integer, object } from './schema-builders';

const member = object(
  {
    id: { type: 'string' },
    state: {
      type: 'string',
      description: 'APTA state as the answering process last heard it; UNKNOWN for an owner that is no member',
    },
    takesWork: { type: 'boolean' },
    ringShare: { type: 'number', minimum: 0, maximum: 1, description: 'its share of the allocation ring' },
    liveTasks: integer('live tasks whose stored owner it is'),
    lastHeardAgoMs: integer('ms since last heard of; absent for the answering process and on a static ring'),
  },
  ['id', 'state', 'takesWork', 'ringShare', 'liveTasks'],
);

const hostLoad = object(
  {
    executorId: { type: 'string' },
    sentAt: epochMs('when the executor took the report, on its own clock'),
    cpuCores: integer('online CPUs of its host', { minimum: 0 }),
    cpuBusyPermille: integer('CPU busy over the last interval, thousandths', { minimum: 0, maximum: 1000 }),
    memTotalBytes: integer('host memory', { minimum: 0 }),
    memAvailableBytes: integer('memory available without swapping', { minimum: 0 }),
    nicCapacityBytesPerSecond: integer('what its NIC carries at most (load.nicBytesPerSecond)', { minimum: 0 }),
    nicBytesPerSecond: integer('received plus sent over the last interval', { minimum: 0 }),
    senderSlots: integer('units it runs at once at most (load.senderSlots)', { minimum: 0 }),
    senderSlotsFree: integer('of those, not running a unit', { minimum: 0 }),
    ageMs: integer('ms since the dispatcher received it; older than load.maxReportAgeMs: not planned on', {
      minimum: 0,
    }),
  },
  [
    'executorId',
    'sentAt',
    'cpuCores',
    'cpuBusyPermille',
    'memTotalBytes',
    'memAvailableBytes',
    'nicCapacityBytesPerSecond',
    'nicBytesPerSecond',
    'senderSlots',
    'senderSlotsFree',
    'ageMs',
  ],
);

/** A recipient's fate in a task (core/fate, docs/recipient-truth.md): `fate` says which of the optional fields are there. */
export const cluster = object(
  {
    apta: { type: 'boolean', description: 'false: a static ring (embedded)' },
    self: object(
      { id: { type: 'string' }, state: { type: 'string' } },
      ['id', 'state'],
      'the answering process, when it is a member',
    ),
    ring: { type: 'array', items: { type: 'string' }, description: 'the allocation ring it routes by' },
    members: { type: 'array', items: member },
    unownedLiveTasks: integer('live tasks no scheduler holds'),
    hosts: {
      type: 'array',
      items: hostLoad,
      description:
        'each executor\'s last load report, as the dispatcher in this process holds it (embedded only; docs/scheduling.md, "Load-aware dispatch")',
    },
  },
  ['apta', 'ring', 'members', 'unownedLiveTasks'],
);

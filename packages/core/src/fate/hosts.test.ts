import {
  classifyFate,
  deliveryAcrossHosts,
  HostsUnreachable,
  isHostsUnreachable,
  loginAcrossHosts,
  PurgeIncomplete,
  purgedBeforeUnreachable,
  type DeliveryFacts,
} from './index';

const units = [
  { start: 0, end: 100, checkpoint: 100, executorId: 'executor-1' },
  { start: 100, end: 200, checkpoint: 150, executorId: 'executor-2' },
];
const none: DeliveryFacts = { kind: 'none' };
const down = (...hosts: string[]) => new Set(hosts);

describe('deliveryAcrossHosts', () => {
  it('keeps a record found, whoever did not answer', () => {
    const record = { kind: 'record', online: true, at: 5, executor: 'executor-3' } as const;
    expect(deliveryAcrossHosts(record, 120, units, down('executor-2'))).toBe(record);
  });

  it('changes nothing when every host answered', () => {
    expect(deliveryAcrossHosts(none, 170, units, down())).toBe(none);
  });

  it("answers unknown naming the unit's executor when it did not answer, reached or not", () => {
    const unknown = { kind: 'unavailable', reason: 'host executor-2 unreachable' };
    expect(deliveryAcrossHosts(none, 120, units, down('executor-2'))).toEqual(unknown);
    expect(deliveryAcrossHosts(none, 170, units, down('executor-2'))).toEqual(unknown);
  });

  it('answers unknown for a position a checkpoint passed when another host did not answer (a unit moved)', () => {
    expect(deliveryAcrossHosts(none, 50, units, down('executor-3', 'executor-2'))).toEqual({
      kind: 'unavailable',
      reason: 'hosts executor-2, executor-3 unreachable',
    });
    const predates: DeliveryFacts = { kind: 'unavailable', reason: 'unit 0 confirmed this position without a record' };
    expect(deliveryAcrossHosts(predates, 50, units, down('executor-3'))).toEqual({
      kind: 'unavailable',
      reason: 'host executor-3 unreachable',
    });
  });

  it("keeps not reached when the unit's executor answered and its checkpoint is before the position", () => {
    expect(deliveryAcrossHosts(none, 170, units, down('executor-1'))).toBe(none);
  });

  it('never turns into "not reached" or "not delivered" once classified', () => {
    const facts = (delivery: DeliveryFacts) => ({
      uin: 9,
      taskState: 'COMPLETED' as const,
      expiresAt: 1_000,
      now: 500,
      filtered: true,
      position: 120,
      removal: { recorded: true as const, complete: true, reason: undefined, duplicateCopies: 0 },
      delivery,
      login: { kind: 'none' as const },
    });
    const answer = classifyFate(facts(deliveryAcrossHosts(none, 120, units, down('executor-2'))));
    expect(answer).toMatchObject({ fate: 'unknown', reason: 'host executor-2 unreachable' });
  });
});

describe('loginAcrossHosts', () => {
  it('answers unknown when the host that queued the recipient did not answer and no outcome was found', () => {
    expect(loginAcrossHosts({ kind: 'none' }, 'executor-2', down('executor-2'))).toEqual({
      kind: 'unavailable',
      reason: 'host executor-2 unreachable',
    });
  });

  it('keeps an outcome found, and "none" when the host that queued it answered', () => {
    const outcome = { kind: 'record', outcome: { taskId: 1, uin: 2, outcome: 'delivered', at: 3 } } as const;
    expect(loginAcrossHosts(outcome, 'executor-2', down('executor-2'))).toBe(outcome);
    expect(loginAcrossHosts({ kind: 'none' }, 'executor-1', down('executor-2'))).toEqual({ kind: 'none' });
  });
});

describe('HostsUnreachable', () => {
  it('names its hosts once each, sorted, and is recognised', () => {
    const error = new HostsUnreachable(['executor-3', 'executor-2', 'executor-3']);
    expect(error.hosts).toEqual(['executor-2', 'executor-3']);
    expect(error.message).toBe('hosts executor-2, executor-3 unreachable');
    expect(isHostsUnreachable(error)).toBe(true);
    expect(isHostsUnreachable(new Error('x'))).toBe(false);
  });
});

describe('PurgeIncomplete', () => {
  it('is a HostsUnreachable that carries what the hosts that answered removed', () => {
    const error = new PurgeIncomplete(['executor-2'], { batches: 3, logins: 5 });
    expect(isHostsUnreachable(error)).toBe(true);
    expect(error.hosts).toEqual(['executor-2']);
    expect(purgedBeforeUnreachable(error)).toEqual({ batches: 3, logins: 5 });
  });

  it('says nothing was counted for a plain HostsUnreachable or any other error', () => {
    expect(purgedBeforeUnreachable(new HostsUnreachable(['executor-2']))).toBeUndefined();
    expect(
      purgedBeforeUnreachable(Object.assign(new Error('x'), { purged: { batches: 1, logins: 1 } })),
    ).toBeUndefined();
  });
});

import { classifyFate, type FateFacts } from './index';

const facts = (over: Partial<FateFacts>): FateFacts => ({
  uin: 7,
  taskState: 'COMPLETED',
  expiresAt: 1_000,
  now: 500,
  filtered: true,
  position: 3,
  removal: { recorded: true, complete: true, reason: undefined, duplicateCopies: 0 },
  delivery: { kind: 'none' },
  login: { kind: 'none' },
  ...over,
});

describe('classifyFate', () => {
  it('answers a uin in no set and no list as not in the audience', () => {
    expect(classifyFate(facts({ position: undefined }))).toEqual({ uin: 7, fate: 'not_in_audience' });
  });

  it('names the link that removed it, and counts duplicate copies apart', () => {
    const removal = { recorded: true, complete: true, reason: 'blacklisted', duplicateCopies: 2 } as const;
    expect(classifyFate(facts({ position: undefined, removal }))).toEqual({
      uin: 7,
      fate: 'removed',
      link: 'blacklisted',
      duplicateCopiesRemoved: 2,
    });
  });

  it('says unknown, not "not in the audience", when the removals were recorded in part or not at all', () => {
    const partial = { recorded: true, complete: false, reason: undefined, duplicateCopies: 0 } as const;
    expect(classifyFate(facts({ position: undefined, removal: partial })).fate).toBe('unknown');
    expect(classifyFate(facts({ position: undefined, removal: { recorded: false } })).fate).toBe('unknown');
  });

  it("answers a position the channel rejected for good as rejected, with the channel's reason", () => {
    const delivery = { kind: 'record', online: true, at: 42, executor: 'e1', rejected: 'unregistered' } as const;
    expect(classifyFate(facts({ delivery }))).toEqual({
      uin: 7,
      position: 3,
      fate: 'rejected',
      at: 42,
      executor: 'e1',
      reason: 'unregistered',
    });
    // A rejection is of an online push: an offline position stays queued offline.
    expect(classifyFate(facts({ delivery: { ...delivery, online: false } })).fate).toBe('queued_offline');
  });

  it('answers a duplicated uin kept once by its kept copy', () => {
    const removal = { recorded: true, complete: true, reason: undefined, duplicateCopies: 1 } as const;
    const delivery = { kind: 'record', online: true, at: 42, executor: 'e1' } as const;
    expect(classifyFate(facts({ removal, delivery }))).toEqual({
      uin: 7,
      position: 3,
      duplicateCopiesRemoved: 1,
      fate: 'delivered_online',
      at: 42,
      executor: 'e1',
      atLogin: false,
    });
  });

  it('follows an offline entry to its login outcome, or its expiry, or keeps it waiting', () => {
    const delivery = { kind: 'record', online: false, at: 42, executor: 'e1' } as const;
    const login = (outcome: 'delivered' | 'expired' | 'over_frequency') =>
      ({ kind: 'record', outcome: { taskId: 1, uin: 7, outcome, at: 99 } }) as const;
    const then = (over: Partial<FateFacts>) => {
      const fate = classifyFate(facts({ delivery, ...over }));
      return fate.fate === 'queued_offline' ? fate.then : undefined;
    };
    expect(then({ login: login('delivered') })).toEqual({ outcome: 'delivered_at_login', at: 99 });
    expect(then({ login: login('over_frequency') })).toEqual({
      outcome: 'dropped_at_login',
      at: 99,
      why: 'over_frequency',
    });
    expect(then({ login: login('expired') })).toEqual({ outcome: 'dropped_at_login', at: 99, why: 'expired' });
    expect(then({ now: 1_000 })).toEqual({ outcome: 'expired', at: 1_000 });
    expect(then({})).toEqual({ outcome: 'waiting', until: 1_000 });
    expect(then({ login: { kind: 'unavailable', reason: 'host B unreachable' } })).toEqual({
      outcome: 'unknown',
      reason: 'host B unreachable',
    });
  });

  it('says not reached for a live, paused or cancelled task, unknown for a completed one without a record', () => {
    expect(classifyFate(facts({ taskState: 'SENDING' }))).toMatchObject({ fate: 'not_reached', taskState: 'SENDING' });
    expect(classifyFate(facts({ taskState: 'PAUSED' }))).toMatchObject({ fate: 'not_reached', taskState: 'PAUSED' });
    expect(classifyFate(facts({ taskState: 'CANCELLED' }))).toMatchObject({ fate: 'not_reached' });
    expect(classifyFate(facts({ taskState: 'COMPLETED' })).fate).toBe('unknown');
  });

  it('passes on why the delivery record is unavailable', () => {
    const delivery = { kind: 'unavailable', reason: 'unknown: host B unreachable' } as const;
    expect(classifyFate(facts({ delivery }))).toMatchObject({ fate: 'unknown', reason: 'unknown: host B unreachable' });
  });

  it('answers a task whose list was never filtered by its state', () => {
    expect(classifyFate(facts({ filtered: false, taskState: 'CANCELLED' })).fate).toBe('not_reached');
    expect(classifyFate(facts({ filtered: false, taskState: 'PREPROCESSING' })).fate).toBe('unknown');
  });
});

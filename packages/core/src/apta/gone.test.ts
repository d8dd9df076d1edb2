import { ValidationError } from '../errors';
import { compileAptaConfig } from './config';
import { aptaOwnershipRing } from './gone';
import type { AptaMessage, AptaMessageKind, AptaTableEntry } from './messages';
import { APTA_STATES, type AptaState } from './states';
import { aptaStep, type AptaAction, type AptaInput, type AptaStepResult } from './step';
import { aptaPeer, createMemberView, type MemberView } from './view';

const config = compileAptaConfig({
  helloIntervalMs: 100,
  deadIntervalMs: 400,
  silencePeriodMs: 1200,
  joinTimeoutMs: 400,
  lsrRetransmitMs: 100,
});
const T0 = 1_000_000;

let seq = 0;
function from(id: string, kind: AptaMessageKind, state: AptaState, table: AptaTableEntry[], requestId = 0) {
  const advert = { from: id, incarnation: 7, seq: ++seq, state, takesWork: true, table };
  return (
    kind === 'lsr.request' || kind === 'lsr.reply' ? { kind, requestId, ...advert } : { kind, ...advert }
  ) as AptaMessage;
}
const entryOf = (view: MemberView): AptaTableEntry => ({
  id: view.id,
  incarnation: view.incarnation,
  seq: view.seq,
  state: view.state,
  takesWork: true,
});
const received = (now: number, message: AptaMessage): AptaInput => ({ kind: 'received', now, message });
const tick = (now: number): AptaInput => ({ kind: 'tick', now });
const gone = (now: number, peer: string): AptaInput => ({ kind: 'peerGone', now, peer });
const path = (r: AptaStepResult) =>
  r.actions
    .filter((a): a is Extract<AptaAction, { type: 'stateChanged' }> => a.type === 'stateChanged')
    .map((a) => a.to);
const lsrTo = (r: AptaStepResult) =>
  r.actions
    .filter((a): a is Extract<AptaAction, { type: 'send' }> => a.type === 'send' && a.message.kind === 'lsr.request')
    .map((a) => a.to);

/** `ids` each send a Hello (in `state`, listing `view`) every 100 ms until `until`. */
function talk(view: MemberView, ids: string[], until: number, state: AptaState = 'SILENCE'): MemberView {
  let v = view;
  for (let t = v.now + 100; t <= until; t += 100)
    for (const id of ids) v = aptaStep(v, received(t, from(id, 'hello', state, [entryOf(v)]))).view;
  return v;
}

/** Process `a` with peers b and c, in each state a row starts from; `working` has the ring [a, b, c]. */
function states() {
  const fresh = aptaStep(createMemberView({ id: 'a', now: T0, config }), tick(T0)).view;
  let joining = aptaStep(fresh, received(T0 + 10, from('b', 'hello', 'WORKING', []))).view;
  joining = aptaStep(joining, received(T0 + 11, from('c', 'hello', 'WORKING', []))).view;
  let online = aptaStep(joining, received(T0 + 20, from('b', 'hello.reply', 'WORKING', [entryOf(joining)]))).view;
  online = aptaStep(online, received(T0 + 21, from('c', 'hello.reply', 'WORKING', [entryOf(joining)]))).view;
  const requestId = online.sync!.requestId;
  let silence = aptaStep(
    online,
    received(T0 + 30, from('b', 'lsr.reply', 'SILENCE', [entryOf(online)], requestId)),
  ).view;
  silence = aptaStep(silence, received(T0 + 31, from('c', 'lsr.reply', 'SILENCE', [entryOf(online)], requestId))).view;
  const beforeEnd = talk(silence, ['b', 'c'], silence.since + config.silencePeriodMs - 50);
  const working = aptaStep(beforeEnd, tick(silence.since + config.silencePeriodMs)).view;
  const offline = aptaStep(working, tick(working.lastContactAt + config.deadIntervalMs)).view;
  return { fresh, joining, online, silence, working, offline };
}

/** `a` WORKING on [a, b, c] told that c died, then the LSR from b that starts the silence. */
function afterDeath() {
  const { working } = states();
  const told = aptaStep(working, gone(working.now + 10, 'c'));
  const silenced = aptaStep(told.view, received(told.view.now + 5, from('b', 'lsr.request', 'SILENCE', [], 9)));
  return { working, told, silenced: silenced.view };
}

describe('peerGone: every state', () => {
  type Start = ReturnType<typeof states>;
  const rows: {
    state: AptaState;
    run: (s: Start) => AptaStepResult;
    next: AptaState;
    check: (r: AptaStepResult) => void;
  }[] = [
    {
      state: 'JOINING',
      run: (s) => aptaStep(s.joining, gone(s.joining.now + 5, 'c')),
      next: 'JOINING',
      check: (r) => {
        expect(aptaPeer(r.view, 'c')!.state).toBe('OFFLINE');
        expect(r.view.gone).toEqual([]); // no ring agreed yet: nothing to hand over
        expect(aptaOwnershipRing(r.view)).toBeUndefined();
      },
    },
    {
      state: 'ONLINE',
      run: (s) => aptaStep(s.online, gone(s.online.now + 5, 'c')),
      next: 'ONLINE',
      check: (r) => {
        expect(aptaPeer(r.view, 'c')!.state).toBe('OFFLINE');
        expect(r.view.gone).toEqual([]);
      },
    },
    {
      state: 'SILENCE',
      run: (s) => aptaStep(s.silence, gone(s.silence.now + 5, 'c')),
      next: 'SILENCE',
      check: (r) => {
        expect(r.view.gone).toEqual([]); // a first silence: no ring was ever agreed here
        expect(aptaOwnershipRing(r.view)).toBeUndefined();
      },
    },
    {
      state: 'WORKING',
      run: (s) => aptaStep(s.working, gone(s.working.now + 5, 'c')),
      next: 'WORKING',
      check: (r) => {
        expect(aptaPeer(r.view, 'c')!.state).toBe('OFFLINE');
        expect(r.view.gone).toEqual(['c']);
        expect(r.view.ring).toEqual(['a', 'b', 'c']); // the agreed ring waits for the silence
        expect(aptaOwnershipRing(r.view)).toEqual(['a', 'b']); // c's arc goes to its successors now
        expect(lsrTo(r)).toEqual(['b']); // and the change is announced at once, not after the dead interval
      },
    },
    {
      state: 'OFFLINE',
      run: (s) => aptaStep(s.offline, gone(s.offline.now + 5, 'c')),
      next: 'OFFLINE',
      check: (r) => {
        expect(r.view.gone).toEqual([]); // cut off: owns nothing, takes nothing
        expect(aptaOwnershipRing(r.view)).toBeUndefined();
      },
    },
  ];

  it('the table covers every state', () => {
    expect(APTA_STATES.filter((state) => !rows.some((r) => r.state === state))).toEqual([]);
  });

  describe.each(rows.map((row) => [row.state, row] as const))('%s + peerGone', (_name, row) => {
    it(`-> ${row.next}`, () => {
      const r = row.run(states());
      expect(r.view.state).toBe(row.next);
      expect(path(r)).toEqual(row.next === row.state ? [] : [row.next]);
      row.check(r);
    });
  });
});

describe('peerGone: the interim ring', () => {
  it('is the last ring without the dead member through the silence, until the next ring is fixed', () => {
    const { silenced } = afterDeath();
    expect(silenced.state).toBe('SILENCE');
    expect(silenced.ring).toEqual([]);
    expect(aptaOwnershipRing(silenced)).toEqual(['a', 'b']);
    const late = talk(silenced, ['b'], silenced.since + config.silencePeriodMs - 50);
    expect(aptaOwnershipRing(late)).toEqual(['a', 'b']);
    const next = aptaStep(late, tick(silenced.since + config.silencePeriodMs));
    expect(next.view).toMatchObject({ state: 'WORKING', ring: ['a', 'b'], lastRing: ['a', 'b'], gone: [] });
    expect(aptaOwnershipRing(next.view)).toEqual(['a', 'b']);
  });

  it('keeps the dead member out even when it comes back before the next ring (its tasks were fenced away)', () => {
    const { silenced } = afterDeath();
    const back = aptaStep(
      silenced,
      received(silenced.now + 20, { ...from('c', 'hello', 'JOINING', []), incarnation: 8 }),
    );
    expect(aptaPeer(back.view, 'c')).toMatchObject({ state: 'JOINING', incarnation: 8 });
    expect(aptaOwnershipRing(back.view)).toEqual(['a', 'b']);
  });

  it('is not revived by a table that relays the gone incarnation, only by the process itself', () => {
    const { told } = afterDeath();
    const relayed = aptaStep(
      told.view,
      received(
        told.view.now + 5,
        from('b', 'hello', 'WORKING', [{ ...entryOf(told.view), id: 'c', seq: 10_000, incarnation: 7 }]),
      ),
    );
    expect(aptaPeer(relayed.view, 'c')!.state).toBe('OFFLINE');
    const itself = aptaStep(relayed.view, received(relayed.view.now + 5, from('c', 'hello', 'WORKING', [])));
    expect(aptaPeer(itself.view, 'c')!.state).toBe('WORKING');
  });

  it('is forgotten when this process loses contact: an isolated process owns by no stale ring', () => {
    const { silenced } = afterDeath();
    const cut = aptaStep(silenced, tick(silenced.lastContactAt + config.deadIntervalMs));
    expect(cut.view).toMatchObject({ state: 'OFFLINE', lastRing: [], gone: [] });
    expect(aptaOwnershipRing(cut.view)).toBeUndefined();
  });

  it('is not made for a member that only went silent: the dead interval marks it OFFLINE, its arc waits for the ring', () => {
    const { working } = states();
    const quiet = talk(working, ['b'], working.now + config.deadIntervalMs, 'WORKING');
    expect(aptaPeer(quiet, 'c')!.state).toBe('OFFLINE');
    expect(quiet.gone).toEqual([]);
    expect(aptaOwnershipRing(quiet)).toEqual(['a', 'b', 'c']);
    const silenced = aptaStep(quiet, received(quiet.now + 5, from('b', 'lsr.request', 'SILENCE', [], 9))).view;
    expect(silenced.state).toBe('SILENCE');
    expect(aptaOwnershipRing(silenced)).toBeUndefined();
  });

  it('ignores a report about itself or an unknown process, and refuses a bad peer id', () => {
    const { working } = states();
    expect(aptaStep(working, gone(working.now + 5, 'a')).view.gone).toEqual([]);
    expect(aptaStep(working, gone(working.now + 5, 'zed')).view.gone).toEqual([]);
    expect(() => aptaStep(working, gone(working.now + 5, 'bad id!'))).toThrow(ValidationError);
    expect(() => aptaStep(working, { kind: 'peerGone', now: working.now } as AptaInput)).toThrow(/peerGone.peer/);
  });
});

import { HeraldError, ValidationError } from '../errors';
import { compileAptaConfig } from './config';
import { APTA_MESSAGE_KINDS, type AptaMessage, type AptaMessageKind, type AptaTableEntry } from './messages';
import { APTA_STATES, type AptaState } from './states';
import { aptaNextTickAt, aptaStep, type AptaAction, type AptaInput, type AptaStepResult } from './step';
import { createMemberView, aptaPeer, type MemberView } from './view';

const config = compileAptaConfig({
  helloIntervalMs: 100,
  deadIntervalMs: 400,
  silencePeriodMs: 1200,
  joinTimeoutMs: 400,
  lsrRetransmitMs: 100,
});
const T0 = 1_000_000;

/** Peer b (and c) as scripted senders: every message gets a fresh heartbeat. */
let seq = 0;
function from(
  id: string,
  kind: AptaMessageKind,
  state: AptaState,
  table: AptaTableEntry[],
  requestId = 0,
): AptaMessage {
  const advert = { from: id, incarnation: 7, seq: ++seq, state, takesWork: true, table };
  return kind === 'lsr.request' || kind === 'lsr.reply' ? { kind, requestId, ...advert } : { kind, ...advert };
}
/** How a peer lists `view` in its table. */
const entryOf = (view: MemberView): AptaTableEntry => ({
  id: view.id,
  incarnation: view.incarnation,
  seq: view.seq,
  state: view.state,
  takesWork: true,
});
const received = (now: number, message: AptaMessage): AptaInput => ({ kind: 'received', now, message });
const tick = (now: number): AptaInput => ({ kind: 'tick', now });

const path = (r: AptaStepResult) =>
  r.actions
    .filter((a) => a.type === 'stateChanged')
    .map((a) => (a as Extract<AptaAction, { type: 'stateChanged' }>).to);
const sent = (r: AptaStepResult, kind: AptaMessageKind) =>
  r.actions
    .filter((a): a is Extract<AptaAction, { type: 'send' }> => a.type === 'send' && a.message.kind === kind)
    .map((a) => a.to);
const rings = (r: AptaStepResult) =>
  r.actions
    .filter((a) => a.type === 'ringChanged')
    .map((a) => (a as Extract<AptaAction, { type: 'ringChanged' }>).members);

/** Feeds b's Hellos every 100 ms (b in `state`, listing a) until `until`, ticking in between. */
function talkUntil(view: MemberView, until: number, state: AptaState = 'SILENCE'): MemberView {
  let v = view;
  for (let t = v.now + 100; t <= until; t += 100)
    v = aptaStep(v, received(t, from('b', 'hello', state, [entryOf(v)]))).view;
  return v;
}

/** One process `a` walked along the happy path with one peer `b`; each state as the table below starts it. */
function states() {
  const fresh = aptaStep(createMemberView({ id: 'a', now: T0, config }), tick(T0)).view;
  const joining = aptaStep(fresh, received(T0 + 10, from('b', 'hello', 'WORKING', []))).view;
  const online = aptaStep(joining, received(T0 + 20, from('b', 'hello.reply', 'WORKING', [entryOf(joining)]))).view;
  const silence = aptaStep(
    online,
    received(T0 + 30, from('b', 'lsr.reply', 'SILENCE', [entryOf(online)], online.sync!.requestId)),
  ).view;
  const beforeEnd = talkUntil(silence, silence.since + config.silencePeriodMs - 50);
  const working = aptaStep(beforeEnd, tick(silence.since + config.silencePeriodMs)).view;
  const offline = aptaStep(working, tick(working.lastContactAt + config.deadIntervalMs)).view;
  return { fresh, joining, online, silence, working, offline };
}

describe('the states the table starts from', () => {
  it('are reached along the seed path JOINING -> ONLINE -> SILENCE -> WORKING -> OFFLINE', () => {
    const s = states();
    expect([s.fresh.state, s.joining.state, s.online.state, s.silence.state, s.working.state, s.offline.state]).toEqual(
      ['JOINING', 'JOINING', 'ONLINE', 'SILENCE', 'WORKING', 'OFFLINE'],
    );
    expect(s.online.sync).toMatchObject({ requested: ['b'], replied: [] });
    expect(s.working.ring).toEqual(['a', 'b']);
    expect(s.offline.ring).toEqual([]);
    expect(aptaPeer(s.offline, 'b')!.state).toBe('OFFLINE');
  });
});

type Start = ReturnType<typeof states>;
interface Row {
  state: AptaState;
  input: 'tick' | AptaMessageKind;
  when: string;
  run: (s: Start) => AptaStepResult;
  next: AptaState;
  /** The stateChanged path, when not simply [] (ignored) or [next]. */
  path?: AptaState[];
  /** Further checks on the result. */
  also?: (r: AptaStepResult, s: Start) => void;
}

/**
 * Every (state, input kind) pair of aptaStep(): the next state, and what else
 * happens. Inputs the state does not act on are "ignored": same state, at
 * most an answer and table bookkeeping.
 */
const ROWS: Row[] = [
  // JOINING
  {
    state: 'JOINING',
    input: 'tick',
    when: 'nothing due',
    run: (s) => aptaStep(s.joining, tick(s.joining.now + 50)),
    next: 'JOINING',
  },
  {
    state: 'JOINING',
    input: 'tick',
    when: 'nobody heard for joinTimeoutMs: founds a cluster, ONLINE and at once SILENCE (no one to ask)',
    run: (s) => aptaStep(s.fresh, tick(T0 + config.joinTimeoutMs)),
    next: 'SILENCE',
    path: ['ONLINE', 'SILENCE'],
  },
  {
    state: 'JOINING',
    input: 'tick',
    when: 'peers known but nothing heard for deadIntervalMs',
    run: (s) => aptaStep(s.joining, tick(s.joining.lastContactAt + config.deadIntervalMs)),
    next: 'OFFLINE',
  },
  {
    state: 'JOINING',
    input: 'hello',
    when: 'from a member that does not list it yet: answered',
    run: (s) => aptaStep(s.joining, received(T0 + 15, from('b', 'hello', 'WORKING', []))),
    next: 'JOINING',
    also: (r) => expect(sent(r, 'hello.reply')).toEqual(['b']),
  },
  {
    state: 'JOINING',
    input: 'hello',
    when: 'from the only member, listing it: accepted, asks for LSR',
    run: (s) => aptaStep(s.joining, received(T0 + 15, from('b', 'hello', 'WORKING', [entryOf(s.joining)]))),
    next: 'ONLINE',
    also: (r) => {
      expect(sent(r, 'lsr.request')).toEqual(['b']);
      expect(sent(r, 'hello.reply')).toEqual(['b']);
    },
  },
  {
    state: 'JOINING',
    input: 'hello.reply',
    when: 'listing it: accepted',
    run: (s) => aptaStep(s.joining, received(T0 + 15, from('b', 'hello.reply', 'WORKING', [entryOf(s.joining)]))),
    next: 'ONLINE',
  },
  {
    state: 'JOINING',
    input: 'hello.reply',
    when: 'not listing it',
    run: (s) => aptaStep(s.joining, received(T0 + 15, from('b', 'hello.reply', 'WORKING', []))),
    next: 'JOINING',
  },
  {
    state: 'JOINING',
    input: 'lsr.request',
    when: 'answered, no state change',
    run: (s) => aptaStep(s.joining, received(T0 + 15, from('b', 'lsr.request', 'ONLINE', [], 9))),
    next: 'JOINING',
    also: (r) => expect(sent(r, 'lsr.reply')).toEqual(['b']),
  },
  {
    state: 'JOINING',
    input: 'lsr.reply',
    when: 'no request outstanding: ignored',
    run: (s) => aptaStep(s.joining, received(T0 + 15, from('b', 'lsr.reply', 'WORKING', [], 9))),
    next: 'JOINING',
    also: (r) => expect(r.actions.filter((a) => a.type === 'send')).toEqual([]),
  },

  // ONLINE
  {
    state: 'ONLINE',
    input: 'tick',
    when: 'nothing due',
    run: (s) => aptaStep(s.online, tick(s.online.now + 10)),
    next: 'ONLINE',
  },
  {
    state: 'ONLINE',
    input: 'tick',
    when: 'lsrRetransmitMs without a reply: asks again',
    run: (s) => aptaStep(s.online, tick(s.online.sync!.sentAt + config.lsrRetransmitMs)),
    next: 'ONLINE',
    also: (r, s) => {
      expect(sent(r, 'lsr.request')).toEqual(['b']);
      expect(r.actions.find((a) => a.type === 'send' && a.message.kind === 'lsr.request')).toMatchObject({
        message: { requestId: s.online.sync!.requestId },
      });
    },
  },
  {
    state: 'ONLINE',
    input: 'tick',
    when: 'nothing heard for deadIntervalMs',
    run: (s) => aptaStep(s.online, tick(s.online.lastContactAt + config.deadIntervalMs)),
    next: 'OFFLINE',
  },
  {
    state: 'ONLINE',
    input: 'tick',
    when: 'the only peer not yet replied is marked OFFLINE while another peer talks: synced without it',
    run: () => {
      const fresh = createMemberView({ id: 'a', now: T0, config });
      const both = [{ id: 'c', incarnation: 7, seq: 1, state: 'WORKING', takesWork: true }] as AptaTableEntry[];
      let v = aptaStep(fresh, received(T0 + 10, from('b', 'hello.reply', 'WORKING', [entryOf(fresh), ...both]))).view;
      v = aptaStep(v, received(T0 + 20, from('c', 'hello.reply', 'WORKING', [entryOf(v)]))).view;
      expect(v.state).toBe('ONLINE');
      v = aptaStep(v, received(T0 + 30, from('c', 'lsr.reply', 'SILENCE', [entryOf(v)], v.sync!.requestId))).view;
      v = talkFrom('c', v, T0 + 10 + config.deadIntervalMs - 1);
      expect(v.state).toBe('ONLINE');
      return aptaStep(v, tick(T0 + 10 + config.deadIntervalMs));
    },
    next: 'SILENCE',
    also: (r) => expect(aptaPeer(r.view, 'b')!.state).toBe('OFFLINE'),
  },
  {
    state: 'ONLINE',
    input: 'hello',
    when: 'answered',
    run: (s) => aptaStep(s.online, received(T0 + 25, from('b', 'hello', 'WORKING', [entryOf(s.online)]))),
    next: 'ONLINE',
    also: (r) => expect(sent(r, 'hello.reply')).toEqual(['b']),
  },
  {
    state: 'ONLINE',
    input: 'hello.reply',
    when: 'table bookkeeping',
    run: (s) => aptaStep(s.online, received(T0 + 25, from('b', 'hello.reply', 'WORKING', []))),
    next: 'ONLINE',
  },
  {
    state: 'ONLINE',
    input: 'hello',
    when: 'from a peer not yet asked: asked too',
    run: (s) => aptaStep(s.online, received(T0 + 25, from('c', 'hello', 'JOINING', []))),
    next: 'ONLINE',
    also: (r) => expect(sent(r, 'lsr.request')).toEqual(['c']),
  },
  {
    state: 'ONLINE',
    input: 'lsr.request',
    when: 'from another joiner: answered, no silence yet',
    run: (s) => aptaStep(s.online, received(T0 + 25, from('b', 'lsr.request', 'ONLINE', [], 3))),
    next: 'ONLINE',
    also: (r) => expect(sent(r, 'lsr.reply')).toEqual(['b']),
  },
  {
    state: 'ONLINE',
    input: 'lsr.reply',
    when: 'from the last peer of its round: synced',
    run: (s) => aptaStep(s.online, received(T0 + 25, from('b', 'lsr.reply', 'SILENCE', [], s.online.sync!.requestId))),
    next: 'SILENCE',
  },
  {
    state: 'ONLINE',
    input: 'lsr.reply',
    when: 'to another request: ignored',
    run: (s) =>
      aptaStep(s.online, received(T0 + 25, from('b', 'lsr.reply', 'SILENCE', [], s.online.sync!.requestId + 100))),
    next: 'ONLINE',
  },

  // SILENCE
  {
    state: 'SILENCE',
    input: 'tick',
    when: 'before the silence period ends',
    run: (s) => aptaStep(s.silence, tick(s.silence.since + 50)),
    next: 'SILENCE',
  },
  {
    state: 'SILENCE',
    input: 'tick',
    when: 'silencePeriodMs after the last LSR: the ring is fixed',
    run: (s) =>
      aptaStep(
        talkUntil(s.silence, s.silence.since + config.silencePeriodMs - 50),
        tick(s.silence.since + config.silencePeriodMs),
      ),
    next: 'WORKING',
    also: (r) => expect(rings(r)).toEqual([['a', 'b']]),
  },
  {
    state: 'SILENCE',
    input: 'tick',
    when: 'nothing heard for deadIntervalMs',
    run: (s) => aptaStep(s.silence, tick(s.silence.lastContactAt + config.deadIntervalMs)),
    next: 'OFFLINE',
  },
  {
    state: 'SILENCE',
    input: 'hello',
    when: 'answered',
    run: (s) => aptaStep(s.silence, received(T0 + 40, from('b', 'hello', 'SILENCE', []))),
    next: 'SILENCE',
  },
  {
    state: 'SILENCE',
    input: 'hello.reply',
    when: 'table bookkeeping',
    run: (s) => aptaStep(s.silence, received(T0 + 40, from('b', 'hello.reply', 'SILENCE', []))),
    next: 'SILENCE',
  },
  {
    state: 'SILENCE',
    input: 'lsr.request',
    when: 'restarts the silence, answered, without a Hello of its own (its state is unchanged)',
    run: (s) => aptaStep(s.silence, received(s.silence.nextHelloAt - 1, from('b', 'lsr.request', 'WORKING', [], 4))),
    next: 'SILENCE',
    path: ['SILENCE'],
    also: (r, s) => {
      expect(r.view.since).toBe(s.silence.nextHelloAt - 1);
      expect(sent(r, 'lsr.reply')).toEqual(['b']);
      expect(r.actions.filter((a) => a.type === 'broadcast')).toEqual([]);
      expect(r.view.seq).toBe(s.silence.seq);
    },
  },
  {
    state: 'SILENCE',
    input: 'lsr.reply',
    when: 'restarts the silence',
    run: (s) => aptaStep(s.silence, received(T0 + 500, from('b', 'lsr.reply', 'WORKING', [], 4))),
    next: 'SILENCE',
    path: ['SILENCE'],
    also: (r) => expect(r.view.since).toBe(T0 + 500),
  },

  // WORKING
  {
    state: 'WORKING',
    input: 'tick',
    when: 'nothing due',
    run: (s) => aptaStep(s.working, tick(s.working.now + 10)),
    next: 'WORKING',
  },
  {
    state: 'WORKING',
    input: 'tick',
    when: 'no Hello in and none answered for deadIntervalMs',
    run: (s) => aptaStep(s.working, tick(s.working.lastContactAt + config.deadIntervalMs)),
    next: 'OFFLINE',
    also: (r) => expect(rings(r)).toEqual([[]]),
  },
  {
    state: 'WORKING',
    input: 'hello',
    when: 'answered',
    run: (s) => aptaStep(s.working, received(s.working.now + 10, from('b', 'hello', 'WORKING', []))),
    next: 'WORKING',
  },
  {
    state: 'WORKING',
    input: 'hello',
    when: 'from a WORKING process not on its ring (a healed partition): announces the change by LSR',
    run: (s) => aptaStep(s.working, received(s.working.now + 10, from('c', 'hello', 'WORKING', []))),
    next: 'WORKING',
    also: (r) => expect(sent(r, 'lsr.request').sort()).toEqual(['b', 'c']),
  },
  {
    state: 'WORKING',
    input: 'hello.reply',
    when: 'table bookkeeping',
    run: (s) => aptaStep(s.working, received(s.working.now + 10, from('b', 'hello.reply', 'WORKING', []))),
    next: 'WORKING',
  },
  {
    state: 'WORKING',
    input: 'lsr.request',
    when: 'membership changing: stops working, answers',
    run: (s) => aptaStep(s.working, received(s.working.now + 10, from('b', 'lsr.request', 'WORKING', [], 5))),
    next: 'SILENCE',
    also: (r) => {
      expect(rings(r)).toEqual([[]]);
      expect(sent(r, 'lsr.reply')).toEqual(['b']);
    },
  },
  {
    state: 'WORKING',
    input: 'lsr.reply',
    when: 'any LSR',
    run: (s) => aptaStep(s.working, received(s.working.now + 10, from('b', 'lsr.reply', 'SILENCE', [], 5))),
    next: 'SILENCE',
  },

  // OFFLINE
  {
    state: 'OFFLINE',
    input: 'tick',
    when: 'stays, and keeps broadcasting Hellos',
    run: (s) => aptaStep(s.offline, tick(s.offline.nextHelloAt)),
    next: 'OFFLINE',
    also: (r) => expect(r.actions.filter((a) => a.type === 'broadcast')).toHaveLength(1),
  },
  {
    state: 'OFFLINE',
    input: 'hello',
    when: 'contact again',
    run: (s) => aptaStep(s.offline, received(s.offline.now + 10, from('b', 'hello', 'WORKING', []))),
    next: 'JOINING',
  },
  {
    state: 'OFFLINE',
    input: 'hello.reply',
    when: 'contact again',
    run: (s) => aptaStep(s.offline, received(s.offline.now + 10, from('b', 'hello.reply', 'WORKING', []))),
    next: 'JOINING',
  },
  {
    state: 'OFFLINE',
    input: 'lsr.request',
    when: 'contact again, answered as JOINING',
    run: (s) => aptaStep(s.offline, received(s.offline.now + 10, from('b', 'lsr.request', 'ONLINE', [], 6))),
    next: 'JOINING',
    also: (r) =>
      expect(r.actions.find((a) => a.type === 'send')).toMatchObject({
        to: 'b',
        message: { kind: 'lsr.reply', requestId: 6, state: 'JOINING' },
      }),
  },
  {
    state: 'OFFLINE',
    input: 'lsr.reply',
    when: 'contact again',
    run: (s) => aptaStep(s.offline, received(s.offline.now + 10, from('b', 'lsr.reply', 'WORKING', [], 6))),
    next: 'JOINING',
  },
];

function talkFrom(id: string, view: MemberView, until: number): MemberView {
  let v = view;
  for (let t = v.now + 100; t <= until; t += 100)
    v = aptaStep(v, received(t, from(id, 'hello', 'SILENCE', [entryOf(v)]))).view;
  return v.now < until ? aptaStep(v, received(until, from(id, 'hello', 'SILENCE', [entryOf(v)]))).view : v;
}

describe('step: every (state, input kind) pair', () => {
  const inputs = ['tick', ...APTA_MESSAGE_KINDS] as const;
  it('the table covers all of them', () => {
    const missing = APTA_STATES.flatMap((state) =>
      inputs
        .filter((input) => !ROWS.some((r) => r.state === state && r.input === input))
        .map((input) => `${state}/${input}`),
    );
    expect(missing).toEqual([]);
  });

  describe.each(ROWS.map((row) => [`${row.state} + ${row.input} (${row.when})`, row] as const))('%s', (_name, row) => {
    it(`-> ${row.next}`, () => {
      const start = states();
      const r = row.run(start);
      expect(r.view.state).toBe(row.next);
      expect(path(r)).toEqual(row.path ?? (row.next === row.state ? [] : [row.next]));
      row.also?.(r, start);
    });
  });
});

describe('step', () => {
  it('broadcasts a Hello on every state change and every helloIntervalMs, with a rising seq', () => {
    const v0 = createMemberView({ id: 'a', now: T0, config });
    const r1 = aptaStep(v0, tick(T0));
    expect(r1.actions).toEqual([
      {
        type: 'broadcast',
        message: { kind: 'hello', from: 'a', incarnation: T0, seq: 1, state: 'JOINING', takesWork: true, table: [] },
      },
    ]);
    expect(aptaStep(r1.view, tick(T0 + 99)).actions).toEqual([]);
    const r2 = aptaStep(r1.view, tick(T0 + 100));
    expect(r2.actions).toMatchObject([{ type: 'broadcast', message: { seq: 2 } }]);
    const s = states();
    const r3 = aptaStep(s.working, received(s.working.now + 1, from('b', 'lsr.request', 'WORKING', [], 1)));
    expect(r3.actions.map((a) => a.type)).toEqual(['stateChanged', 'broadcast', 'send', 'ringChanged']);
    expect(r3.view.seq).toBe(s.working.seq + 1);
  });

  it('answers with its table: every live peer, never itself, never an OFFLINE one', () => {
    const s = states();
    const r = aptaStep(s.working, received(s.working.now + 1, from('c', 'hello', 'JOINING', [])));
    const reply = r.actions.find((a) => a.type === 'send' && a.message.kind === 'hello.reply') as Extract<
      AptaAction,
      { type: 'send' }
    >;
    expect(reply.message.table.map((e) => e.id)).toEqual(['b', 'c']);
    const offlineTable = (
      aptaStep(s.offline, tick(s.offline.nextHelloAt)).actions[0] as Extract<AptaAction, { type: 'broadcast' }>
    ).message.table;
    expect(offlineTable).toEqual([]);
  });

  it('learns peers from a table, and keeps a peer alive through another process (no direct link needed)', () => {
    const s = states();
    let v = s.working;
    // c is only ever heard of through b; its heartbeat keeps rising.
    for (let i = 1; i <= 20; i++) {
      v = aptaStep(
        v,
        received(
          v.now + 100,
          from('b', 'hello', 'WORKING', [
            entryOf(v),
            { id: 'c', incarnation: 3, seq: i, state: 'JOINING', takesWork: true },
          ]),
        ),
      ).view;
    }
    expect(aptaPeer(v, 'c')).toMatchObject({ state: 'JOINING', seq: 20, lastHeardAt: v.now });
    // b goes on talking, but c's heartbeat stops: c is OFFLINE deadIntervalMs later.
    const stopped = v.now;
    for (let i = 0; i < 4; i++)
      v = aptaStep(
        v,
        received(
          v.now + 100,
          from('b', 'hello', 'WORKING', [
            entryOf(v),
            { id: 'c', incarnation: 3, seq: 20, state: 'JOINING', takesWork: true },
          ]),
        ),
      ).view;
    expect(v.now).toBe(stopped + config.deadIntervalMs);
    expect(aptaPeer(v, 'c')!.state).toBe('OFFLINE');
    expect(v.state).toBe('WORKING');
  });

  it('takes a restarted peer (higher incarnation) at its word, and ignores an older incarnation', () => {
    const s = states();
    const restarted = aptaStep(
      s.working,
      received(s.working.now + 1, { ...from('b', 'hello', 'JOINING', []), incarnation: 8, seq: 1 }),
    ).view;
    expect(aptaPeer(restarted, 'b')).toMatchObject({ incarnation: 8, seq: 1, state: 'JOINING' });
    const late = aptaStep(
      restarted,
      received(restarted.now + 1, { ...from('b', 'hello', 'WORKING', []), incarnation: 7, seq: 999 }),
    ).view;
    expect(aptaPeer(late, 'b')).toMatchObject({ incarnation: 8, state: 'JOINING' });
  });

  it('re-announces a membership change every lsrRetransmitMs while WORKING, until an LSR arrives', () => {
    const s = states();
    const t = s.working.now + 10;
    const first = aptaStep(s.working, received(t, from('c', 'hello', 'WORKING', [])));
    expect(sent(first, 'lsr.request').sort()).toEqual(['b', 'c']);
    expect(first.view.announcedAt).toBe(t);
    expect(sent(aptaStep(first.view, tick(t + config.lsrRetransmitMs - 1)), 'lsr.request')).toEqual([]);
    expect(aptaNextTickAt(first.view)).toBeLessThanOrEqual(t + config.lsrRetransmitMs);
    const again = aptaStep(first.view, tick(t + config.lsrRetransmitMs));
    expect(sent(again, 'lsr.request').sort()).toEqual(['b', 'c']);
    const answered = aptaStep(again.view, received(again.view.now + 5, from('b', 'lsr.reply', 'SILENCE', [], 1)));
    expect(answered.view).toMatchObject({ state: 'SILENCE', announcedAt: null, ring: [] });
  });

  it('ignores its own messages (a broadcast that looped back)', () => {
    const s = states();
    const own = {
      kind: 'hello',
      from: 'a',
      incarnation: s.working.incarnation,
      seq: 99,
      state: 'WORKING',
      takesWork: true,
      table: [],
    } as AptaMessage;
    const r = aptaStep(s.working, received(s.working.now + 1, own));
    expect(r.actions).toEqual([]);
    expect(r.view.peers).toEqual(s.working.peers);
    expect(r.view.lastContactAt).toBe(s.working.lastContactAt);
  });

  it('rejects malformed inputs with ValidationError, leaving the view as it was', () => {
    const s = states();
    const bad: unknown[] = [
      { kind: 'tick', now: NaN },
      { kind: 'tick', now: -1 },
      { kind: 'wake', now: T0 },
      { kind: 'received', now: T0, message: { ...from('b', 'hello', 'WORKING', []), kind: 'goodbye' } },
      { kind: 'received', now: T0, message: { ...from('b', 'hello', 'WORKING', []), from: '' } },
      { kind: 'received', now: T0, message: { ...from('b', 'hello', 'WORKING', []), state: 'ASLEEP' } },
      { kind: 'received', now: T0, message: { ...from('b', 'hello', 'WORKING', []), seq: -1 } },
      { kind: 'received', now: T0, message: { ...from('b', 'hello', 'WORKING', []), table: [{ id: 'c' }] } },
      { kind: 'received', now: T0, message: { ...from('b', 'lsr.request', 'WORKING', []), requestId: 1.5 } },
    ];
    for (const input of bad) {
      let thrown: unknown;
      try {
        aptaStep(s.working, input as AptaInput);
      } catch (error) {
        thrown = error;
      }
      expect([input, thrown]).toEqual([input, expect.any(ValidationError)]);
      expect((thrown as HeraldError).code).toBe('VALIDATION_FAILED');
    }
  });

  it('never rewinds: a time earlier than the view is taken as the view time', () => {
    const s = states();
    const r = aptaStep(s.silence, tick(s.silence.now - 10_000));
    expect(r.view.now).toBe(s.silence.now);
    expect(r.view.state).toBe('SILENCE');
  });

  it('does not put a process that takes no work on the ring', () => {
    const observer = createMemberView({ id: 'api-1', now: T0, config, takesWork: false });
    let v = aptaStep(observer, tick(T0 + config.joinTimeoutMs)).view;
    expect(v.state).toBe('SILENCE');
    v = aptaStep(v, tick(v.since + config.silencePeriodMs)).view;
    expect(v.state).toBe('WORKING');
    expect(v.ring).toEqual([]);
  });

  it('aptaNextTickAt names the next time a tick does something', () => {
    const s = states();
    for (const view of [s.fresh, s.joining, s.online, s.silence, s.working, s.offline]) {
      const at = aptaNextTickAt(view);
      expect(at).toBeGreaterThan(view.now - 1);
      const before = aptaStep(view, tick(at - 1));
      expect([view.state, before.actions]).toEqual([view.state, []]);
      expect([view.state, aptaStep(view, tick(at)).actions.length > 0]).toEqual([view.state, true]);
    }
  });
});

describe('createMemberView', () => {
  it('starts JOINING with nobody known and a Hello due now', () => {
    expect(createMemberView({ id: 'scheduler-1', now: 5 })).toMatchObject({
      id: 'scheduler-1',
      incarnation: 5,
      takesWork: true,
      state: 'JOINING',
      since: 5,
      nextHelloAt: 5,
      peers: [],
      ring: [],
      config: { helloIntervalMs: 1000, deadIntervalMs: 4000, silencePeriodMs: 12_000 },
    });
  });

  it('rejects a bad id, time or incarnation', () => {
    for (const input of [
      { id: '', now: 1 },
      { id: 'a b', now: 1 },
      { id: 'a', now: -1 },
      { id: 'a', now: 1, incarnation: 1.5 },
    ]) {
      expect(() => createMemberView(input)).toThrow(ValidationError);
    }
  });
});

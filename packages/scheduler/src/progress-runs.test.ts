import type { Message, UnitProgressMessage } from '@herald/transport';
import { foldProgress } from './progress-runs';

const report = (unitNo: number, from: number, to: number, extra: Partial<UnitProgressMessage> = {}) =>
  ({
    kind: 'unit.progress',
    taskId: 7,
    epoch: 2,
    unitNo,
    from,
    to,
    delivered: to - from - 1,
    offline: 1,
    done: false,
    ...extra,
  }) satisfies UnitProgressMessage;

/** Units 0 and 1 stand at 0 and 100; any other is unknown here. */
const checkpoints = (taskId: number, unitNo: number) => (taskId === 7 ? [0, 100][unitNo] : undefined);
const ranges = (messages: Message[]) =>
  messages.map((m) => (m.kind === 'unit.progress' ? `${m.unitNo}:${m.from}-${m.to}` : m.kind));

describe('folding a run of progress reports', () => {
  it("folds a unit's reports that follow on from its checkpoint into one, counts summed", () => {
    const folded = foldProgress(
      [
        report(0, 0, 10, { deadLetters: { unregistered: 1 } }),
        report(1, 100, 110),
        report(0, 10, 20, { deadLetters: { unregistered: 2, bad_token: 1 } }),
        report(0, 20, 30, { done: true }),
        report(1, 110, 120),
      ],
      checkpoints,
    );
    expect(ranges(folded)).toEqual(['0:0-30', '1:100-120']);
    expect(folded[0]).toEqual({
      ...report(0, 0, 30),
      delivered: 27,
      offline: 3,
      done: true,
      deadLetters: { unregistered: 3, bad_token: 1 },
    });
    expect(folded[1]).toMatchObject({ delivered: 18, offline: 2, done: false });
  });

  it('leaves a replay, a gap and an unknown unit as they came, in their place', () => {
    const run = [
      report(0, 0, 10),
      report(0, 0, 10), // a replay of the same batch: not a continuation
      report(1, 90, 100), // before the checkpoint: a replay
      report(1, 100, 110),
      report(1, 120, 130), // past a gap
      report(2, 0, 10), // a unit not known here
      report(2, 10, 20),
    ];
    expect(ranges(foldProgress(run, checkpoints))).toEqual([
      '0:0-10',
      '0:0-10',
      '1:90-100',
      '1:100-110',
      '1:120-130',
      '2:0-10',
      '2:10-20',
    ]);
  });

  it('does not fold across a report carrying more than counts, another epoch, or a message for the task', () => {
    const hold = report(0, 10, 10, { channel: { state: 'throttled', reason: 'HTTP 429' } });
    const command: Message = { kind: 'task.submitted', taskId: 7 };
    const otherTask: Message = { kind: 'task.submitted', taskId: 8 };
    expect(ranges(foldProgress([report(0, 0, 10), hold, report(0, 10, 20)], checkpoints))).toEqual([
      '0:0-10',
      '0:10-10',
      '0:10-20',
    ]);
    expect(ranges(foldProgress([report(0, 0, 10), report(0, 10, 20, { epoch: 3 })], checkpoints))).toEqual([
      '0:0-10',
      '0:10-20',
    ]);
    expect(ranges(foldProgress([report(0, 0, 10), command, report(0, 10, 20)], checkpoints))).toEqual([
      '0:0-10',
      'task.submitted',
      '0:10-20',
    ]);
    expect(ranges(foldProgress([report(0, 0, 10), otherTask, report(0, 10, 20)], checkpoints))).toEqual([
      '0:0-20',
      'task.submitted',
    ]);
    const refused = report(0, 10, 20, { refused: 'HTTP 400' });
    expect(foldProgress([report(0, 0, 10), refused], checkpoints)).toEqual([report(0, 0, 10), refused]);
  });
});

import { compileConfig } from '@herald/core/config';
import type { HostLoad } from '@herald/core/dispatch';
import type { Logger } from '@herald/core/ports';
import { planUnits } from './plan-units';

const config = compileConfig({ dispatcher: { unitSize: 100 } });
const NOW = 1_000_000;

function idle(executorId: string, over: Partial<HostLoad> = {}): HostLoad {
  return {
    executorId,
    sentAt: 0,
    cpuCores: 4,
    cpuBusyPermille: 0,
    memTotalBytes: 2 ** 30,
    memAvailableBytes: 2 ** 30,
    nicCapacityBytesPerSecond: 125_000_000,
    nicBytesPerSecond: 0,
    senderSlots: 4,
    senderSlotsFree: 4,
    ...over,
  };
}

function recorder() {
  const lines: [level: string, message: string, fields: Record<string, unknown>][] = [];
  const at =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}) =>
      void lines.push([level, message, fields]);
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

describe('planUnits (the dispatcher side of load-aware dispatch)', () => {
  it('places the task on the host its load says fits, and says why', () => {
    const { logger, lines } = recorder();
    const reasons: string[] = [];
    const loads = [
      { report: idle('e1', { cpuBusyPermille: 900 }), receivedAt: NOW - 100 },
      { report: idle('e2'), receivedAt: NOW - 100 },
    ];
    const units = planUnits(7, 250, {
      config,
      executorIds: ['e1', 'e2'],
      loads,
      now: NOW,
      logger,
      planned: (r) => reasons.push(r),
    });
    expect(units).toEqual([
      { start: 0, end: 100, executorId: 'e2' },
      { start: 100, end: 200, executorId: 'e2' },
      { start: 200, end: 250, executorId: 'e2' },
    ]);
    expect(reasons).toEqual(['one-host']);
    expect(lines).toEqual([
      [
        'info',
        'units planned by load',
        expect.objectContaining({ taskId: 7, count: 250, reason: 'one-host', hosts: ['e2'], units: 3 }),
      ],
    ]);
  });

  it('warns, with the reason, when it cannot follow the loads (no fresh report)', () => {
    const { logger, lines } = recorder();
    const loads = [{ report: idle('e1'), receivedAt: NOW - config.load.maxReportAgeMs - 1 }];
    const units = planUnits(8, 200, { config, executorIds: ['e1', 'e2'], loads, now: NOW, logger });
    expect(units.map((u) => u.executorId)).toEqual(['e1', 'e2']);
    expect(lines).toHaveLength(1);
    expect(lines[0]![0]).toBe('warn');
    expect(lines[0]![1]).toMatch(/no executor reported its load within load.maxReportAgeMs/);
    expect(lines[0]![2]).toMatchObject({ taskId: 8, reason: 'no-fresh-report' });
  });

  it('plans a task that asks for a speed at that speed, and one without at a share of the spare capacity', () => {
    const loads = [
      { report: idle('e1'), receivedAt: NOW - 100 },
      { report: idle('e2'), receivedAt: NOW - 100 },
    ];
    const asked = recorder();
    // 10^8 recipients/s is more than both idle hosts carry: the units spread over both.
    const units = planUnits(9, 250, {
      config,
      executorIds: ['e1', 'e2'],
      loads,
      now: NOW,
      logger: asked.logger,
      speed: 100_000_000,
    });
    expect(new Set(units.map((u) => u.executorId))).toEqual(new Set(['e1', 'e2']));
    expect(asked.lines[0]![2]).toMatchObject({ taskId: 9, speed: 100_000_000 });
    for (const speed of [undefined, 0]) {
      const plain = recorder();
      expect(
        planUnits(10, 250, {
          config,
          executorIds: ['e1', 'e2'],
          loads,
          now: NOW,
          logger: plain.logger,
          ...(speed === undefined ? {} : { speed }),
        }).map((u) => u.executorId),
      ).toEqual(['e1', 'e1', 'e1']);
      expect(plain.lines[0]![2]).toMatchObject({ taskId: 10, reason: 'one-host' });
      expect(plain.lines[0]![2].speed).not.toBe(100_000_000);
    }
  });
});

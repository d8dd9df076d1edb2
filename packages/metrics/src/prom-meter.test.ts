import { HeraldError } from '@herald/core';
import { createPromMeter } from './prom-meter';
import { createJsonLogger } from './json-logger';

describe('createPromMeter', () => {
  it('exposes counters and gauges with labels, sharing metrics by name', async () => {
    const meter = createPromMeter();
    meter.counter('herald_test_total', 'test', ['kind']).inc({ kind: 'a' }, 2);
    meter.counter('herald_test_total', 'test', ['kind']).inc({ kind: 'a' });
    meter.gauge('herald_test_gauge', 'test').set(7);
    const { body } = await meter.exposition();
    expect(body).toContain('herald_test_total{kind="a"} 3');
    expect(body).toContain('herald_test_gauge 7');
  });

  it('exposes histograms with their buckets, sharing them by name', async () => {
    const meter = createPromMeter();
    meter.histogram('herald_test_seconds', 'test', ['lane'], [0.1, 1]).observe(0.05, { lane: 'a' });
    meter.histogram('herald_test_seconds', 'test', ['lane'], [0.1, 1]).observe(0.5, { lane: 'a' });
    const { body } = await meter.exposition();
    expect(body).toContain('herald_test_seconds_bucket{le="0.1",lane="a"} 1');
    expect(body).toContain('herald_test_seconds_bucket{le="1",lane="a"} 2');
    expect(body).toContain('herald_test_seconds_count{lane="a"} 2');
  });
});

describe('createJsonLogger', () => {
  it('writes one JSON object per line at or above its level', () => {
    const lines: string[] = [];
    const logger = createJsonLogger({ level: 'warn', write: (line) => lines.push(line) });
    logger.info('hidden');
    logger.warn('shown', { taskId: 3 });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'warn', msg: 'shown', taskId: 3 });
  });

  it("puts time, level and msg first, then the base fields and the call's, which cannot overwrite them", () => {
    const lines: string[] = [];
    const logger = createJsonLogger({ base: { tier: 'scheduler', id: 's1' }, write: (line) => lines.push(line) });
    logger.info('task completed', { taskId: 42, level: 'debug', msg: 'spoofed' });
    expect(Object.keys(JSON.parse(lines[0]!))).toEqual(['time', 'level', 'msg', 'tier', 'id', 'taskId']);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'info',
      msg: 'task completed',
      tier: 'scheduler',
      taskId: 42,
    });
  });

  it('writes errors with their code and cause, bigints as strings, and never throws', () => {
    const lines: string[] = [];
    const logger = createJsonLogger({ write: (line) => lines.push(line) });
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    logger.error('store failed', {
      taskId: 7,
      error: new HeraldError('UNAVAILABLE', 'store down', { cause: new Error('ECONNREFUSED') }),
      epoch: 5n,
    });
    logger.error('odd fields', { taskId: 8, cycle });
    expect(JSON.parse(lines[0]!)).toMatchObject({
      taskId: 7,
      epoch: '5',
      error: { name: 'HeraldError', message: 'store down', code: 'UNAVAILABLE', cause: 'ECONNREFUSED' },
    });
    expect(JSON.parse(lines[1]!)).toMatchObject({
      level: 'error',
      msg: 'odd fields',
      taskId: 8,
      logError: expect.stringContaining('not written'),
    });
  });
});

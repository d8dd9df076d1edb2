import { createJsonLogger, REDACTED_FIELDS } from './json-logger';

function capture(options: Parameters<typeof createJsonLogger>[0] = {}) {
  const lines: string[] = [];
  const logger = createJsonLogger({ ...options, write: (line) => lines.push(line) });
  return { logger, lines, parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('createJsonLogger children', () => {
  it("writes a child's fields on each of its lines, after the base and before the call's", () => {
    const { logger, lines, parsed } = capture({ base: { tier: 'executor', id: 'e1' } });
    const task = logger.child({ taskId: 42 });
    task.child({ unitNo: 3 }).warn('batch not confirmed', { offset: 4096 });
    logger.info('no task');
    expect(lines).toHaveLength(2);
    expect(Object.keys(parsed()[0]!)).toEqual(['time', 'level', 'msg', 'tier', 'id', 'taskId', 'unitNo', 'offset']);
    expect(parsed()[0]).toMatchObject({
      level: 'warn',
      msg: 'batch not confirmed',
      taskId: 42,
      unitNo: 3,
      offset: 4096,
    });
    expect(parsed()[1]).not.toHaveProperty('taskId');
  });

  it("keeps its parent's level", () => {
    const { logger, lines } = capture({ level: 'warn' });
    logger.child({ taskId: 1 }).info('hidden');
    logger.child({ taskId: 1 }).error('shown');
    expect(lines).toHaveLength(1);
  });

  it('cannot overwrite time, level or msg through its fields', () => {
    const { logger, parsed } = capture();
    logger.child({ level: 'debug', msg: 'spoofed', time: 0 }).info('real');
    expect(parsed()[0]).toMatchObject({ level: 'info', msg: 'real' });
    expect(typeof parsed()[0]!.time).toBe('string');
  });
});

describe('createJsonLogger redaction by field name', () => {
  it.each(REDACTED_FIELDS)('censors a field named %s, at the top, one object down and in a child', (name) => {
    const { logger, lines, parsed } = capture();
    const secret = 'plainwords';
    logger.child({ [name]: secret }).error('failed', { [name]: secret, connection: { host: 'db', [name]: secret } });
    expect(lines[0]).not.toContain(secret);
    expect(parsed()[0]).toMatchObject({ [name]: '***', connection: { host: 'db', [name]: '***' } });
  });

  it('leaves fields with other names alone (an event key is not a credential)', () => {
    const { logger, parsed } = capture();
    logger.warn('event skipped', { key: 'uin:42', position: 7 });
    expect(parsed()[0]).toMatchObject({ key: 'uin:42', position: 7 });
  });
});

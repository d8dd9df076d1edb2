import { createJsonLogger } from './json-logger';
import { createPromMeter } from './prom-meter';

/** Log lines and metric labels never carry a credential (docs/security.md). */
describe('redaction in logs and metrics', () => {
  const PASSWORD = 'S3cretPW';
  const TOKEN = 'hrd_ab12_Tk9secretTk9secretTk9secretTk9secret12345';

  it('writes log lines without the passwords and tokens of any field, message or error', () => {
    const lines: string[] = [];
    const logger = createJsonLogger({ write: (line) => lines.push(line), base: { tier: 'executor' } });
    logger.error(`cannot reach mysql://herald:${PASSWORD}@db:3306`, {
      url: `https://user:${PASSWORD}@push.example/in?token=${PASSWORD}`,
      error: new Error(`connect ECONNREFUSED mysqlx://root:${PASSWORD}@db`, {
        cause: new Error(`Authorization: Bearer ${TOKEN}`),
      }),
      token: TOKEN,
      nested: { config: JSON.stringify({ password: PASSWORD }) },
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(PASSWORD);
    expect(lines[0]).not.toContain('Tk9secret');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      msg: 'cannot reach mysql://herald:***@db:3306',
      token: '***',
      tier: 'executor',
    });
  });

  it('exposes metric labels without credentials', async () => {
    const meter = createPromMeter();
    meter
      .counter('herald_test_errors_total', 'test', ['endpoint'])
      .inc({ endpoint: `https://user:${PASSWORD}@push.example/in` });
    meter.gauge('herald_test_up', 'test', ['endpoint']).set(1, { endpoint: `mysql://herald:${PASSWORD}@db` });
    const { body } = await meter.exposition();
    expect(body).not.toContain(PASSWORD);
    expect(body).toContain('endpoint="https://user:***@push.example/in"');
  });
});

import { compileConfig } from './compile';

describe('compileLoad', () => {
  it('keeps the report age at three intervals at least when only the interval is set', () => {
    expect(compileConfig({ load: { reportIntervalMs: 2000 } }).load.maxReportAgeMs).toBe(6000);
    expect(compileConfig({ load: { reportIntervalMs: 500 } }).load.maxReportAgeMs).toBe(3000);
    expect(compileConfig({ load: { reportIntervalMs: 2000, maxReportAgeMs: 2000 } }).load.maxReportAgeMs).toBe(2000);
  });
});

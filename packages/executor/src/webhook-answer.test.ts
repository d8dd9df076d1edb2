import { MAX_ANSWER_BYTES, MAX_RETRY_AFTER_MS, parseRejections, parseRetryAfter } from './webhook-answer';

const NOW = Date.parse('2026-11-27T10:00:00Z');

describe('parseRetryAfter', () => {
  it.each<[string | null, number | undefined]>([
    [null, undefined],
    ['2', 2000],
    [' 0 ', 0],
    ['120', 120_000],
    ['999999999', MAX_RETRY_AFTER_MS],
    ['Fri, 27 Nov 2026 10:00:07 GMT', 7000],
    ['Fri, 27 Nov 2026 09:59:00 GMT', 0],
    ['Sat, 27 Nov 2027 10:00:00 GMT', MAX_RETRY_AFTER_MS],
    ['-1', undefined],
    ['1.5', undefined],
    ['soon', undefined],
    ['Fri, 99 Nov 2026 10:00:07 GMT', undefined],
  ])('reads %j as %j ms', (header, ms) => {
    expect(parseRetryAfter(header, NOW)).toBe(ms);
  });
});

describe('parseRejections', () => {
  const uins = Uint32Array.of(3, 5, 8);

  it('accepts every recipient on an empty body or one without "rejected"', () => {
    expect(parseRejections('', uins)).toEqual({ rejected: [] });
    expect(parseRejections('{"accepted": 3}', uins)).toEqual({ rejected: [] });
  });

  it('reads each rejected uin once, its reason lowered', () => {
    const body = JSON.stringify({
      rejected: [
        { uin: 5, reason: 'BadDeviceToken' },
        { uin: 5, reason: 'unregistered' },
        { uin: 8, reason: 'unknown_user' },
      ],
    });
    expect(parseRejections(body, uins)).toEqual({
      rejected: [
        { uin: 5, reason: 'baddevicetoken' },
        { uin: 8, reason: 'unknown_user' },
      ],
    });
  });

  it.each([
    ['[1]', 'not a JSON object'],
    ['{"rejected": [{"uin": "5", "reason": "x"}]}', 'rejected[0].uin'],
    ['{"rejected": [null]}', 'rejected[0].uin'],
    ['{"rejected": [{"uin": 5}]}', 'rejected[0].reason'],
    [`{"rejected": [{"uin": 5, "reason": "${'x'.repeat(65)}"}]}`, 'rejected[0].reason'],
  ])('calls %s malformed, saying %s', (body, problem) => {
    expect(parseRejections(body, uins)).toEqual({ malformed: expect.stringContaining(problem) });
  });

  it('does not parse an answer above MAX_ANSWER_BYTES', () => {
    const body = `{"rejected": [], "pad": "${' '.repeat(MAX_ANSWER_BYTES)}"}`;
    expect(parseRejections(body, uins)).toEqual({ malformed: expect.stringContaining('above') });
  });
});

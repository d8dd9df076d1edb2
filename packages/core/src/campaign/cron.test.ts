import { ValidationError } from '../errors';
import { parseCron } from './cron';

const range = (a: number, b: number, step = 1) =>
  Array.from({ length: Math.floor((b - a) / step) + 1 }, (_, i) => a + i * step);

describe('parseCron', () => {
  it('reads five fields with second 0, and six with the second first', () => {
    expect(parseCron('30 9 * * 1-5')).toEqual({
      second: [0],
      minute: [30],
      hour: [9],
      dayOfMonth: range(1, 31),
      month: range(1, 12),
      dayOfWeek: [1, 2, 3, 4, 5],
    });
    expect(parseCron('15 30 9 * * *').second).toEqual([15]);
  });

  it.each([
    ['*/15 * * * *', 'minute', [0, 15, 30, 45]],
    ['0 8-18/5 * * *', 'hour', [8, 13, 18]],
    ['0 22-2 * * *', 'hour', [0, 1, 2, 22, 23]],
    ['0 22-2/2 * * *', 'hour', [0, 2, 22]],
    ['5,10,5 * * * *', 'minute', [5, 10]],
    ['0 0 * jan,Mar-may *', 'month', [1, 3, 4, 5]],
    ['0 0 * * MON-FRI', 'dayOfWeek', [1, 2, 3, 4, 5]],
    ['0 0 * * sunday,7', 'dayOfWeek', [0]],
    ['0 0 * * 5-7', 'dayOfWeek', [0, 5, 6]],
    ['0 0 * * 6-1', 'dayOfWeek', [0, 1, 6]],
    ['0 0 * * */2', 'dayOfWeek', [0, 2, 4, 6]],
    ['0 0 ? * *', 'dayOfMonth', range(1, 31)],
    ['0 0 * * ?', 'dayOfWeek', range(0, 6)],
    ['  0   0 1 * *  ', 'dayOfMonth', [1]],
    ['*/100 * * * *', 'minute', [0]],
  ])('%s: %s is %j', (expression, field, values) => {
    expect(parseCron(expression)[field as 'minute']).toEqual(values);
  });

  it('reads the nicknames, in any case', () => {
    expect(parseCron('@daily')).toEqual(parseCron('0 0 * * *'));
    expect(parseCron(' @HOURLY ')).toEqual(parseCron('0 * * * *'));
    expect(parseCron('@weekly')).toEqual(parseCron('0 0 * * 0'));
    expect(parseCron('@yearly')).toEqual(parseCron('@annually'));
  });

  it.each([
    ['', 'cron', undefined, /empty/],
    ['* * * *', 'cron', undefined, /5 or 6 fields/],
    ['* * * * * * *', 'cron', undefined, /5 or 6 fields/],
    ['60 * * * *', 'cron', 'minute', /60 is outside 0-59/],
    ['0 24 * * *', 'cron', 'hour', /outside 0-23/],
    ['0 0 0 * *', 'cron', 'dayOfMonth', /outside 1-31/],
    ['0 0 * 13 *', 'cron', 'month', /outside 1-12/],
    ['0 0 * * 8', 'cron', 'dayOfWeek', /outside 0-7/],
    ['*/0 * * * *', 'cron', 'minute', /step 0/],
    ['5/15 * * * *', 'cron', 'minute', /a step needs \* or a range/],
    ['1,,2 * * * *', 'cron', 'minute', /is not \*/],
    ['* * * foo *', 'cron', 'month', /'foo' is not a number or a name/],
    ['mon * * * *', 'cron', 'minute', /'mon' is not a number/],
    ['0 0 L * *', 'cron', 'dayOfMonth', /L and W are not supported/],
    ['0 0 * * 1#2', 'cron', undefined, /nth weekday/],
    ['0 0 * * 1\t', 'cron', undefined, /not allowed/],
    ['0 0 ? ? ?', 'cron', 'month', /'\?' is allowed only/],
    ['0 0 31 2 *', 'cron', 'dayOfMonth', /never occurs/],
    ['0 0 30,31 2 *', 'cron', 'dayOfMonth', /never occurs/],
    ['@every_day', 'cron', undefined, /nicknames/],
    ['-1 * * * *', 'cron', 'minute', /is not \*/],
  ])('refuses %j with a ValidationError naming the field', (expression, field, cronField, message) => {
    let caught: unknown;
    try {
      parseCron(expression);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    const error = caught as ValidationError;
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details.field).toBe(field);
    expect(error.details.cronField).toBe(cronField);
    expect(error.message).toMatch(message);
  });

  it('refuses what is not a string, and what is too long', () => {
    for (const value of [undefined, null, 5, {}, ['* * * * *']])
      expect(() => parseCron(value)).toThrow(ValidationError);
    expect(() => parseCron(`0 0 * * ${'1,'.repeat(200)}1`)).toThrow(/longer than 255/);
  });

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'refuses %j with a ValidationError, not a TypeError (found by the route fuzz test)',
    (expression) => {
      expect(() => parseCron(expression)).toThrow(ValidationError);
    },
  );

  it('accepts February 29 (it fires in leap years)', () => {
    expect(parseCron('0 0 29 2 *').dayOfMonth).toEqual([29]);
  });
});

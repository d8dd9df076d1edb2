import { bearerToken, formatToken, parseToken } from './token';

const SECRET = 'Abcdefghijklmnopqrstuvwxyz0123456789_-ABCDE';

describe('token text form', () => {
  it('formats and parses back; the secret may hold underscores', () => {
    const token = formatToken('a1b2c3d4', SECRET);
    expect(token).toBe(`hrd_a1b2c3d4_${SECRET}`);
    expect(parseToken(token)).toEqual({ tokenId: 'a1b2c3d4', secret: SECRET });
  });

  it.each([
    ['no prefix', `a1b2c3d4_${SECRET}`],
    ['wrong prefix', `hrx_a1b2c3d4_${SECRET}`],
    ['no secret', 'hrd_a1b2c3d4'],
    ['short id', `hrd_abc_${SECRET}`],
    ['upper-case id', `hrd_A1B2C3D4_${SECRET}`],
    ['short secret', 'hrd_a1b2c3d4_tooshort'],
    ['secret with a space', `hrd_a1b2c3d4_${SECRET.slice(0, 20)} ${SECRET.slice(21)}`],
    ['empty', ''],
    ['very long', `hrd_a1b2c3d4_${'x'.repeat(300)}`],
  ])('refuses a malformed token (%s) with undefined', (_name, raw) => {
    expect(parseToken(raw)).toBeUndefined();
  });

  it('answers undefined for anything that is not a string', () => {
    for (const raw of [undefined, null, 42, {}, ['hrd_a1b2c3d4_x']]) expect(parseToken(raw)).toBeUndefined();
  });

  it('refuses to format malformed parts', () => {
    expect(() => formatToken('AB', SECRET)).toThrow();
    expect(() => formatToken('a1b2c3d4', 'short')).toThrow();
  });
});

describe('bearerToken', () => {
  it('takes the token of a Bearer header, whatever the case of the scheme', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer   abc ')).toBe('abc');
  });

  it('is undefined for another scheme, no token, two tokens or no header', () => {
    for (const header of ['Basic abc', 'Bearer', 'Bearer ', 'Bearer a b', 'abc', undefined, ['Bearer abc']])
      expect(bearerToken(header)).toBeUndefined();
  });
});

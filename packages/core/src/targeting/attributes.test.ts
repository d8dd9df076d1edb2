import { ValidationError } from '../errors';
import { checkUserAttributes, userBitsetKeys } from './attributes';

describe('user attributes', () => {
  it('checks and normalises a user: tags deduplicated and sorted, nulls dropped', () => {
    expect(
      checkUserAttributes(
        { uin: 9, region: 'cn-gd', gender: 'f', ageBand: '65+', activeAt: 86_400_000 * 3 + 5, tags: ['b', 'a', 'b'] },
        2 ** 32,
      ),
    ).toEqual({
      uin: 9,
      region: 'cn-gd',
      gender: 'f',
      ageBand: '65+',
      activeAt: 86_400_000 * 3 + 5,
      tags: ['a', 'b'],
    });
    expect(checkUserAttributes({ uin: 0, region: null, gender: null }, 16)).toEqual({ uin: 0 });
  });

  it.each([
    [{ uin: 16 }, 'uin'],
    [{ uin: -1 }, 'uin'],
    [{ uin: 1.5 }, 'uin'],
    [{ uin: 1, region: 'a b' }, 'region'],
    [{ uin: 1, region: '' }, 'region'],
    [{ uin: 1, gender: 'female' }, 'gender'],
    [{ uin: 1, ageBand: '20' }, 'ageBand'],
    [{ uin: 1, activeAt: -5 }, 'activeAt'],
    [{ uin: 1, tags: 'vip' }, 'tags'],
    [{ uin: 1, tags: Array.from({ length: 65 }, (_, i) => `t${i}`) }, 'tags'],
    [{ uin: 1, tags: ['x'.repeat(65)] }, 'tags'],
    [{ uin: 1, colour: 'red' }, 'colour'],
  ])('refuses %j naming %s', (user, field) => {
    try {
      checkUserAttributes(user, 16);
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).details.field).toBe(field);
    }
  });

  it('gives the keys of every bitset a user is in, the universe first', () => {
    expect(
      userBitsetKeys({ uin: 1, region: 'r', gender: 'm', ageBand: '0-17', activeAt: 86_400_000 * 2, tags: ['a', 'b'] }),
    ).toEqual(['*', 'region=r', 'gender=m', 'age=0-17', 'active=2', 'tag=a', 'tag=b']);
  });
});

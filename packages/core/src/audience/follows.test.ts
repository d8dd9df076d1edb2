import { ValidationError } from '../errors';
import { checkFollowChange, followChangeWins, reduceFollowChanges, type FollowChange } from './follows';

const change = (uin: number, following: boolean, at: number, accountId = 'acme'): FollowChange => ({
  accountId,
  uin,
  following,
  at,
});

describe('follow changes', () => {
  it('the later change wins; at the same time an unfollow beats a follow', () => {
    expect(followChangeWins(change(1, false, 2), change(1, true, 1))).toBe(true);
    expect(followChangeWins(change(1, true, 1), change(1, false, 2))).toBe(false);
    expect(followChangeWins(change(1, false, 5), change(1, true, 5))).toBe(true);
    expect(followChangeWins(change(1, true, 5), change(1, false, 5))).toBe(false);
    expect(followChangeWins(change(1, true, 5), change(1, true, 5))).toBe(false);
  });

  it('reduces a batch to one winner per (account, uin), in any order the same', () => {
    const batch = [
      change(1, true, 1),
      change(1, false, 3),
      change(2, true, 1),
      change(1, true, 2),
      change(1, true, 1, 'other'),
    ];
    const { winners, stale } = reduceFollowChanges(batch);
    expect(winners).toEqual([change(1, false, 3), change(2, true, 1), change(1, true, 1, 'other')]);
    expect(stale).toBe(2);
    const reversed = reduceFollowChanges([...batch].reverse());
    expect(new Set(reversed.winners.map((w) => JSON.stringify(w)))).toEqual(
      new Set(winners.map((w) => JSON.stringify(w))),
    );
  });

  it.each([
    [null, undefined],
    [{ accountId: 'Acme', uin: 1, following: true, at: 1 }, 'accountId'],
    [{ accountId: 'acme', uin: 2 ** 32, following: true, at: 1 }, 'uin'],
    [{ accountId: 'acme', uin: '1', following: true, at: 1 }, 'uin'],
    [{ accountId: 'acme', uin: 1, following: 'yes', at: 1 }, 'following'],
    [{ accountId: 'acme', uin: 1, following: true, at: -1 }, 'at'],
    [{ accountId: 'acme', uin: 1, following: true }, 'at'],
  ])('refuses %j naming %s', (value, field) => {
    try {
      checkFollowChange(value);
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).details.field).toBe(field);
    }
  });
});

import { accountDayOf, type AccountLimits, type BroadcastReservation } from '@herald/core/account-quota';
import { isHeraldError } from '@herald/core';
import type { AccountStore } from '@herald/core/ports';
import { useFreshStore, type StoreFactory } from '../store-factory';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 2023-11-14T00:00:00Z: stores keep times as given, never read a clock. */
const MIDNIGHT = 1_699_920_000_000;
const NOON = MIDNIGHT + 12 * HOUR;
const LIMITS: AccountLimits = { dailyBroadcasts: 3, dailyRecipients: 1000, minIntervalMs: 0, maxSpeed: 0 };

const booking = (key: string, overrides: Partial<BroadcastReservation> = {}): BroadcastReservation => ({
  accountId: 'acme',
  key,
  sendAt: NOON,
  recipients: 10,
  at: NOON,
  ...overrides,
});
const dayOf = (at: number) => accountDayOf(0, at);

async function failure(promise: Promise<unknown>): Promise<{ code: string | undefined; field: unknown }> {
  try {
    await promise;
  } catch (error) {
    return {
      code: isHeraldError(error) ? error.code : undefined,
      field: isHeraldError(error) ? error.details.field : undefined,
    };
  }
  throw new Error('expected a rejection, but the call succeeded');
}

/**
 * The AccountStore contract (core/src/ports/account-store.ts) as tests. Every
 * adapter's test file calls this once with a factory that opens a fresh,
 * empty store; each test gets its own.
 *
 * @example
 *   accountStoreConformance('LevelAccountStore', async () => {
 *     const dir = await makeTempDir('herald-accounts-');
 *     return { store: await LevelAccountStore.open(dir.path), cleanup: dir.remove };
 *   });
 */
export function accountStoreConformance(name: string, open: StoreFactory<AccountStore>): void {
  describe(`AccountStore conformance: ${name}`, () => {
    const store = useFreshStore(open);
    const reserve = (r: BroadcastReservation, limits: AccountLimits = LIMITS) =>
      store().reserve(r, limits, dayOf(r.sendAt));

    describe('settings', () => {
      it('answers undefined for an account never set, and each patch changes only its fields', async () => {
        expect(await store().getSettings('acme')).toBeUndefined();
        expect(await store().updateSettings('acme', { clickThroughRate: 0.031 }, MIDNIGHT)).toEqual({
          accountId: 'acme',
          limits: {},
          clickThroughRate: 0.031,
          updatedAt: MIDNIGHT,
        });
        await store().updateSettings(
          'acme',
          { limits: { dailyBroadcasts: 1, minIntervalMs: 3_600_000 } },
          MIDNIGHT + 1,
        );
        expect(await store().getSettings('acme')).toEqual({
          accountId: 'acme',
          limits: { dailyBroadcasts: 1, minIntervalMs: 3_600_000 },
          clickThroughRate: 0.031,
          updatedAt: MIDNIGHT + 1,
        });
        await store().updateSettings('acme', { limits: {}, clickThroughRate: null }, MIDNIGHT + 2);
        expect(await store().getSettings('acme')).toEqual({
          accountId: 'acme',
          limits: {},
          clickThroughRate: null,
          updatedAt: MIDNIGHT + 2,
        });
        expect(await store().getSettings('globex')).toBeUndefined();
      });

      it('keeps the local-time defaults beside the limits, clears them with nulls, and refuses bad ones by field', async () => {
        const localTime = { defaultTimeZone: 'Europe/Berlin', quietHours: { from: '22:00', to: '08:00' } };
        await store().updateSettings('acme', { limits: { dailyBroadcasts: 3 } }, MIDNIGHT);
        await store().updateSettings('acme', { localTime }, MIDNIGHT + 1);
        expect(await store().getSettings('acme')).toEqual({
          accountId: 'acme',
          limits: { dailyBroadcasts: 3 },
          clickThroughRate: null,
          localTime,
          updatedAt: MIDNIGHT + 1,
        });
        expect(
          await failure(
            store().updateSettings(
              'acme',
              { localTime: { defaultTimeZone: 'Mars/Base', quietHours: null } },
              MIDNIGHT + 2,
            ),
          ),
        ).toEqual({ code: 'VALIDATION_FAILED', field: 'defaultTimeZone' });
        expect((await store().getSettings('acme'))?.localTime).toEqual(localTime);
        // Quiet hours queued offline and logins held (docs/local-time.md): kept as given; a login rule alone is kept too.
        const offline = {
          defaultTimeZone: null,
          quietHours: { from: '22:00', to: '08:00', during: 'offline' as const },
          loginDelivery: 'hold' as const,
        };
        await store().updateSettings('acme', { localTime: offline }, MIDNIGHT + 2);
        expect((await store().getSettings('acme'))?.localTime).toEqual(offline);
        const ruleOnly = { defaultTimeZone: null, quietHours: null, loginDelivery: 'hold' as const };
        await store().updateSettings('acme', { localTime: ruleOnly }, MIDNIGHT + 2);
        expect((await store().getSettings('acme'))?.localTime).toEqual(ruleOnly);
        const unknownRule = { defaultTimeZone: null, quietHours: null, loginDelivery: 'sometimes' };
        expect(
          await failure(store().updateSettings('acme', { localTime: unknownRule as never }, MIDNIGHT + 2)),
        ).toEqual({ code: 'VALIDATION_FAILED', field: 'loginDelivery' });
        await store().updateSettings('acme', { localTime: { defaultTimeZone: null, quietHours: null } }, MIDNIGHT + 3);
        expect(await store().getSettings('acme')).not.toHaveProperty('localTime');
      });

      it('keeps both of two concurrent patches of different fields', async () => {
        await Promise.all([
          store().updateSettings('acme', { limits: { dailyRecipients: 5 } }, MIDNIGHT),
          store().updateSettings('acme', { clickThroughRate: 0.2 }, MIDNIGHT),
        ]);
        expect(await store().getSettings('acme')).toMatchObject({
          limits: { dailyRecipients: 5 },
          clickThroughRate: 0.2,
        });
      });

      it('refuses a bad patch by field and keeps what was stored', async () => {
        await store().updateSettings('acme', { limits: { dailyBroadcasts: 2 } }, MIDNIGHT);
        expect(
          await failure(store().updateSettings('acme', { limits: { dailyBroadcasts: -1 } }, MIDNIGHT + 1)),
        ).toEqual({ code: 'VALIDATION_FAILED', field: 'limits.dailyBroadcasts' });
        expect(await failure(store().updateSettings('acme', { clickThroughRate: 1.5 }, MIDNIGHT + 1))).toEqual({
          code: 'VALIDATION_FAILED',
          field: 'clickThroughRate',
        });
        expect(await failure(store().updateSettings('', {}, MIDNIGHT))).toEqual({
          code: 'VALIDATION_FAILED',
          field: 'accountId',
        });
        expect(await store().getSettings('acme')).toEqual({
          accountId: 'acme',
          limits: { dailyBroadcasts: 2 },
          clickThroughRate: null,
          updatedAt: MIDNIGHT,
        });
      });

      it('keeps account ids byte-exact', async () => {
        await store().updateSettings('acme', { clickThroughRate: 0.1 }, MIDNIGHT);
        await store().updateSettings('acme ', { clickThroughRate: 0.2 }, MIDNIGHT);
        await store().updateSettings('ACME', { clickThroughRate: 0.3 }, MIDNIGHT);
        expect((await store().getSettings('acme'))!.clickThroughRate).toBe(0.1);
        expect((await store().getSettings('acme '))!.clickThroughRate).toBe(0.2);
        expect((await store().getSettings('ACME'))!.clickThroughRate).toBe(0.3);
      });
    });

    describe('reserve: daily quotas', () => {
      it('admits up to the daily broadcasts and refuses the next, recording nothing for it', async () => {
        for (let i = 1; i <= 3; i++) {
          const answer = await reserve(booking(`k${i}`, { sendAt: NOON + i }));
          expect(answer).toMatchObject({
            admitted: true,
            repeated: false,
            usage: { broadcasts: i, recipients: 10 * i },
          });
        }
        const refused = await reserve(booking('k4', { sendAt: NOON + 4 }));
        expect(refused).toMatchObject({
          admitted: false,
          refusal: { limit: 'dailyBroadcasts', max: 3, used: 3, retryAt: MIDNIGHT + DAY },
        });
        expect(await store().usage('acme', dayOf(NOON), NOON)).toEqual({
          broadcasts: 3,
          recipients: 30,
          previousSendAt: null,
          nextSendAt: NOON + 1,
        });
        expect(await store().release('acme', 'k4')).toBe(false);
      });

      it('counts by the day of the send time: the next day admits again, and a broadcast scheduled for tomorrow counts tomorrow', async () => {
        for (let i = 1; i <= 3; i++) await reserve(booking(`today-${i}`, { sendAt: MIDNIGHT + i * HOUR }));
        expect((await reserve(booking('today-4', { sendAt: MIDNIGHT + DAY - 1 }))).admitted).toBe(false);
        expect(await reserve(booking('tomorrow-1', { sendAt: MIDNIGHT + DAY }))).toMatchObject({
          admitted: true,
          usage: { broadcasts: 1 },
        });
        expect(await store().usage('acme', dayOf(MIDNIGHT + DAY), MIDNIGHT + DAY)).toMatchObject({
          broadcasts: 1,
          recipients: 10,
        });
        expect(await store().usage('acme', dayOf(NOON), NOON)).toMatchObject({ broadcasts: 3, recipients: 30 });
      });

      it('cuts days at the offset the caller gives', async () => {
        const utc8 = (at: number) => accountDayOf(480, at);
        const limits = { ...LIMITS, dailyBroadcasts: 1 };
        // 15:00Z and 17:00Z are one UTC day but two UTC+8 days (local midnight is 16:00Z).
        expect(
          (await store().reserve(booking('a', { sendAt: MIDNIGHT + 15 * HOUR }), limits, utc8(MIDNIGHT + 15 * HOUR)))
            .admitted,
        ).toBe(true);
        expect(
          (await store().reserve(booking('b', { sendAt: MIDNIGHT + 17 * HOUR }), limits, utc8(MIDNIGHT + 17 * HOUR)))
            .admitted,
        ).toBe(true);
        expect(
          (await store().reserve(booking('c', { sendAt: MIDNIGHT + 16 * HOUR }), limits, utc8(MIDNIGHT + 16 * HOUR)))
            .admitted,
        ).toBe(false);
      });

      it('refuses recipients over the daily quota', async () => {
        expect((await reserve(booking('big', { recipients: 990 }))).admitted).toBe(true);
        expect(await reserve(booking('more', { recipients: 11 }))).toMatchObject({
          admitted: false,
          refusal: { limit: 'dailyRecipients', used: 990, requested: 11 },
        });
        expect(await reserve(booking('fits', { recipients: 10 }))).toMatchObject({
          admitted: true,
          usage: { recipients: 1000 },
        });
      });

      it('keeps accounts apart', async () => {
        for (let i = 1; i <= 3; i++) await reserve(booking(`k${i}`));
        expect((await reserve(booking('k1', { accountId: 'globex' }))).admitted).toBe(true);
        expect(await store().usage('globex', dayOf(NOON), NOON)).toMatchObject({ broadcasts: 1 });
      });
    });

    describe('reserve: the least interval', () => {
      const spaced = { ...LIMITS, dailyBroadcasts: 10, minIntervalMs: 4 * HOUR };

      it('refuses a send time too close to the broadcasts before and after it, across midnight too', async () => {
        expect((await reserve(booking('noon'), spaced)).admitted).toBe(true);
        expect(await reserve(booking('early', { sendAt: NOON - 3 * HOUR }), spaced)).toMatchObject({
          admitted: false,
          refusal: { limit: 'minIntervalMs', nearestSendAt: NOON, retryAt: NOON + 4 * HOUR },
        });
        expect(await reserve(booking('late', { sendAt: NOON + 3 * HOUR }), spaced)).toMatchObject({
          admitted: false,
          refusal: { limit: 'minIntervalMs', nearestSendAt: NOON },
        });
        expect((await reserve(booking('same', { sendAt: NOON }), spaced)).admitted).toBe(false);
        expect((await reserve(booking('four-later', { sendAt: NOON + 4 * HOUR }), spaced)).admitted).toBe(true);
        expect((await reserve(booking('four-earlier', { sendAt: NOON - 4 * HOUR }), spaced)).admitted).toBe(true);
        expect((await reserve(booking('late-night', { sendAt: MIDNIGHT + DAY - HOUR }), spaced)).admitted).toBe(true);
        expect(await reserve(booking('after-midnight', { sendAt: MIDNIGHT + DAY + HOUR }), spaced)).toMatchObject({
          admitted: false,
          refusal: { nearestSendAt: MIDNIGHT + DAY - HOUR },
        });
      });

      it('answers the nearest send times around an instant', async () => {
        await reserve(booking('a', { sendAt: NOON - 5 * HOUR }), spaced);
        await reserve(booking('b', { sendAt: NOON + 5 * HOUR }), spaced);
        expect(await store().usage('acme', dayOf(NOON), NOON)).toEqual({
          broadcasts: 2,
          recipients: 20,
          previousSendAt: NOON - 5 * HOUR,
          nextSendAt: NOON + 5 * HOUR,
        });
        expect(await store().usage('acme', dayOf(NOON), NOON + 5 * HOUR)).toMatchObject({
          previousSendAt: NOON + 5 * HOUR,
          nextSendAt: NOON + 5 * HOUR,
        });
        expect(await store().usage('nobody', dayOf(NOON), NOON)).toEqual({
          broadcasts: 0,
          recipients: 0,
          previousSendAt: null,
          nextSendAt: null,
        });
      });
    });

    describe('reserve: idempotency and release', () => {
      it('answers a stored key as repeated and counts nothing, whatever the other fields', async () => {
        expect((await reserve(booking('k'))).admitted).toBe(true);
        expect(await reserve(booking('k'))).toMatchObject({
          admitted: true,
          repeated: true,
          usage: { broadcasts: 1, recipients: 10 },
        });
        expect(await reserve(booking('k', { recipients: 500, sendAt: NOON + HOUR }))).toMatchObject({
          admitted: true,
          repeated: true,
        });
        expect(await store().usage('acme', dayOf(NOON), NOON)).toMatchObject({ broadcasts: 1, recipients: 10 });
      });

      it('answers a stored key as repeated even when the day is full', async () => {
        for (let i = 1; i <= 3; i++) await reserve(booking(`k${i}`));
        expect(await reserve(booking('k2'))).toMatchObject({ admitted: true, repeated: true });
      });

      it('frees the room of a released reservation; the key may be reserved again', async () => {
        for (let i = 1; i <= 3; i++) await reserve(booking(`k${i}`));
        expect(await store().release('acme', 'k2')).toBe(true);
        expect(await store().release('acme', 'k2')).toBe(false);
        expect(await store().usage('acme', dayOf(NOON), NOON)).toMatchObject({ broadcasts: 2, recipients: 20 });
        expect(await reserve(booking('k2'))).toMatchObject({
          admitted: true,
          repeated: false,
          usage: { broadcasts: 3 },
        });
        expect(await store().release('globex', 'k1')).toBe(false);
      });

      it('forgets reservations sent long before a new one', async () => {
        const longAgo = NOON - 10 * DAY;
        await reserve(booking('old', { sendAt: longAgo, at: longAgo }));
        await reserve(booking('new', { at: NOON }));
        // Whether it was forgotten is the adapter's choice (within the retention); it never counts on another day.
        expect(await store().usage('acme', dayOf(NOON), NOON)).toMatchObject({ broadcasts: 1 });
      });
    });

    describe('reserve: concurrency', () => {
      it('of many concurrent reservations, admits exactly as many as the quota allows', async () => {
        const answers = await Promise.all(
          Array.from({ length: 12 }, (_, i) => reserve(booking(`c${i}`, { sendAt: NOON + i }))),
        );
        expect(answers.filter((a) => a.admitted)).toHaveLength(3);
        expect(
          answers.filter((a) => !a.admitted).every((a) => !a.admitted && a.refusal.limit === 'dailyBroadcasts'),
        ).toBe(true);
        expect(await store().usage('acme', dayOf(NOON), NOON)).toMatchObject({ broadcasts: 3, recipients: 30 });
      });

      it('of concurrent reservations of one key, counts one', async () => {
        const answers = await Promise.all(Array.from({ length: 8 }, () => reserve(booking('same'))));
        expect(answers.every((a) => a.admitted)).toBe(true);
        expect(answers.filter((a) => a.admitted && !a.repeated)).toHaveLength(1);
        expect(await store().usage('acme', dayOf(NOON), NOON)).toMatchObject({ broadcasts: 1, recipients: 10 });
      });

      it('keeps the interval among concurrent reservations', async () => {
        const spaced = { ...LIMITS, dailyBroadcasts: 100, minIntervalMs: HOUR };
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) => reserve(booking(`s${i}`, { sendAt: NOON + i * 10 * 60_000 }), spaced)),
        );
        const admitted = answers.flatMap((a, i) => (a.admitted ? [NOON + i * 10 * 60_000] : [])).sort((a, b) => a - b);
        for (let i = 1; i < admitted.length; i++) expect(admitted[i]! - admitted[i - 1]!).toBeGreaterThanOrEqual(HOUR);
        expect(admitted.length).toBeGreaterThanOrEqual(1);
      });
    });

    describe('bad input and close', () => {
      it('refuses bad reservations by field and records nothing', async () => {
        expect(await failure(reserve(booking('')))).toEqual({ code: 'VALIDATION_FAILED', field: 'key' });
        expect(await failure(reserve(booking('k', { recipients: -1 })))).toEqual({
          code: 'VALIDATION_FAILED',
          field: 'recipients',
        });
        expect(await failure(store().reserve(booking('k'), LIMITS, dayOf(NOON + DAY)))).toEqual({
          code: 'VALIDATION_FAILED',
          field: 'day',
        });
        expect(await failure(store().reserve(booking('k'), { ...LIMITS, dailyBroadcasts: 1.5 }, dayOf(NOON)))).toEqual({
          code: 'VALIDATION_FAILED',
          field: 'limits.dailyBroadcasts',
        });
        expect(await failure(store().release('', 'k'))).toEqual({ code: 'VALIDATION_FAILED', field: 'accountId' });
        expect(await store().usage('acme', dayOf(NOON), NOON)).toMatchObject({ broadcasts: 0 });
      });

      it('fails every call after close with STORE_CLOSED; a second close is a no-op', async () => {
        const s = store();
        await s.close();
        await s.close();
        expect((await failure(s.getSettings('acme'))).code).toBe('STORE_CLOSED');
        expect((await failure(reserve(booking('k')))).code).toBe('STORE_CLOSED');
      });
    });
  });
}

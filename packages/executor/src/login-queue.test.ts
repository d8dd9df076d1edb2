import type { Meter } from '@herald/core/ports';
import type { LoginDelivery } from './login-delivery';
import { createLoginQueue } from './login-queue';

/** A LoginDelivery stand-in that records walks; `failFor` throws for that uin; `gate` holds every walk until opened. */
function fakeLogins(failFor?: number) {
  const walked: number[] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const logins = {
    async deliver(uin: number) {
      await gate;
      if (uin === failFor) throw new Error('push channel down');
      walked.push(uin);
      return { delivered: 1, expired: 0 };
    },
  } as unknown as LoginDelivery;
  return { logins, walked, open };
}

describe('createLoginQueue', () => {
  it('walks queued users in order, one at a time, without making the caller wait', async () => {
    const { logins, walked, open } = fakeLogins();
    const queue = createLoginQueue(logins, { maxPending: 100, labels: { executor: 'e' } });
    queue.enqueue(Uint32Array.of(3, 1));
    queue.enqueue(Uint32Array.of(2));
    expect(walked).toEqual([]); // nothing walked before the gate opens: enqueue did not wait
    open();
    await queue.idle();
    expect(walked).toEqual([3, 1, 2]);
    expect(queue.pending).toBe(0);
  });

  it('goes on after a walk fails (its entries stay for the next login)', async () => {
    const { logins, walked, open } = fakeLogins(1);
    const queue = createLoginQueue(logins, { maxPending: 100, labels: { executor: 'e' } });
    open();
    queue.enqueue(Uint32Array.of(1, 2));
    await queue.idle();
    expect(walked).toEqual([2]);
  });

  it('drops users beyond maxPending instead of growing without bound', async () => {
    const { logins, walked, open } = fakeLogins();
    const queue = createLoginQueue(logins, { maxPending: 2, labels: { executor: 'e' } });
    queue.enqueue(Uint32Array.of(1, 2, 3, 4));
    expect(queue.pending).toBe(1); // uin 1 is being walked; 2 waits; 3 and 4 dropped
    open();
    await queue.idle();
    expect(walked).toEqual([1, 2]);
  });
});

describe('createLoginQueue metrics', () => {
  it('shows the users waiting, and counts expired entries and failed walks by code', async () => {
    const { logins, open } = fakeLogins(2);
    const expiring = {
      deliver: async (uin: number) => ({ ...(await logins.deliver(uin)), expired: 1 }),
    } as unknown as LoginDelivery;
    const values = new Map<string, number>();
    const key = (name: string, labels?: Record<string, string>) => `${name}${JSON.stringify(labels ?? {})}`;
    const meter: Meter = {
      counter: (name) => ({
        inc: (labels, value = 1) => void values.set(key(name, labels), (values.get(key(name, labels)) ?? 0) + value),
      }),
      gauge: (name) => ({ set: (value, labels) => void values.set(key(name, labels), value) }),
      histogram: () => ({ observe() {} }),
    };
    const queue = createLoginQueue(expiring, { maxPending: 100, labels: { executor: 'e' }, meter });
    queue.enqueue(Uint32Array.of(1, 2, 3));
    expect(values.get(key('herald_executor_login_queue', { executor: 'e' }))).toBe(2); // uin 1 is being walked
    open();
    await queue.idle();
    expect(values.get(key('herald_executor_login_queue', { executor: 'e' }))).toBe(0);
    expect(values.get(key('herald_executor_login_expired_total', { executor: 'e' }))).toBe(2);
    expect(values.get(key('herald_executor_errors_total', { executor: 'e', code: 'INTERNAL' }))).toBe(1);
  });
});

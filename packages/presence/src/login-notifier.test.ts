import { createLoginNotifier, type LoginChannel } from './login-notifier';

/** A channel whose sends stay pending until released, or fail at once when `broken`. */
function channel(executorId: string, broken = false) {
  const sent: number[][] = [];
  const release: (() => void)[] = [];
  const c: LoginChannel = {
    executorId,
    send: (message) => {
      if (broken) return Promise.reject(new Error('link down'));
      sent.push([...message.uins]);
      return new Promise<void>((resolve) => release.push(resolve));
    },
  };
  return { c, sent, releaseAll: () => release.splice(0).forEach((r) => r()) };
}

describe('createLoginNotifier', () => {
  it('sends every notice to every executor without waiting for them', async () => {
    const a = channel('e1');
    const b = channel('e2');
    const notify = createLoginNotifier([a.c, b.c], { maxInFlight: 10, agentId: 'p' });
    await notify(Uint32Array.of(1, 2)); // resolves although no send has completed
    await notify(Uint32Array.of(3));
    expect(a.sent).toEqual([[1, 2], [3]]);
    expect(b.sent).toEqual([[1, 2], [3]]);
  });

  it('drops notices for an executor with too many in flight, and resumes once they complete', async () => {
    const slow = channel('e1');
    const notify = createLoginNotifier([slow.c], { maxInFlight: 1, agentId: 'p' });
    await notify(Uint32Array.of(1));
    await notify(Uint32Array.of(2)); // dropped
    slow.releaseAll();
    await new Promise<void>((resolve) => setImmediate(resolve)); // let the completion run
    await notify(Uint32Array.of(3));
    expect(slow.sent).toEqual([[1], [3]]);
  });

  it('keeps serving the other executors when one link fails', async () => {
    const broken = channel('e1', true);
    const fine = channel('e2');
    const notify = createLoginNotifier([broken.c, fine.c], { maxInFlight: 1, agentId: 'p' });
    await notify(Uint32Array.of(1));
    await new Promise<void>((resolve) => setImmediate(resolve));
    await notify(Uint32Array.of(2));
    expect(fine.sent).toEqual([[1]]); // e2 still has one in flight: the second is dropped for it alone
  });
});

import { compileConfig } from '@herald/core/config';
import { HeraldError } from '@herald/core';
import { waitFor } from '@herald/testing';
import type { HostLoadMessage } from '@herald/transport';
import type { HostSample } from './host-sampler';
import { startLoadReporter } from './load-reporter';

const config = { ...compileConfig().load, reportIntervalMs: 20, senderSlots: 3, nicBytesPerSecond: 1000 };
const host: HostSample = {
  cpuCores: 2,
  cpuBusyPermille: 250,
  memTotalBytes: 100,
  memAvailableBytes: 60,
  nicBytesPerSecond: 10,
};

describe('startLoadReporter', () => {
  it('reports at once and then every interval: the host sample, its NIC capacity and its free sender slots', async () => {
    const sent: HostLoadMessage[] = [];
    let free = 5; // more than the slots: reported as all of them
    const reporter = startLoadReporter({
      executorId: 'e1',
      config,
      sample: async () => host,
      freeSlots: () => free,
      send: async (m) => void sent.push(m),
      clock: { now: () => 42 },
    });
    expect(sent).toHaveLength(0); // the sample is read first, asynchronously
    await waitFor(() => sent.length >= 1, { message: 'the first report' });
    free = 1;
    await waitFor(() => sent.some((m) => m.report.senderSlotsFree === 1), {
      message: 'a report after the slots changed',
    });
    await reporter.stop();
    const count = sent.length;
    expect(sent[0]).toEqual({
      kind: 'host.load',
      report: {
        executorId: 'e1',
        sentAt: 42,
        ...host,
        nicCapacityBytesPerSecond: 1000,
        senderSlots: 3,
        senderSlotsFree: 3,
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 60)); // three intervals: nothing after stop
    expect(sent).toHaveLength(count);
  });

  it('skips a report while the previous one is still being sent, and keeps going after a failed one', async () => {
    const attempts: HostLoadMessage[] = [];
    let release: () => void = () => undefined;
    let calls = 0;
    const reporter = startLoadReporter({
      executorId: 'e1',
      config,
      sample: async () => host,
      freeSlots: () => 0,
      send: (m) => {
        attempts.push(m);
        calls++;
        if (calls === 1) return new Promise<void>((resolve) => (release = resolve)); // a dispatcher that does not read
        if (calls === 2) return Promise.reject(new HeraldError('UNAVAILABLE', 'closed'));
        return Promise.resolve();
      },
    });
    await waitFor(() => calls === 1, { message: 'the first send' });
    await new Promise((resolve) => setTimeout(resolve, 100)); // five intervals while the first send hangs
    expect(calls).toBe(1);
    release();
    await waitFor(() => calls >= 3, { message: 'sends after the failed one' });
    await reporter.stop();
  });

  it('stops at once while a report waits on a dispatcher that is gone', async () => {
    let calls = 0;
    const reporter = startLoadReporter({
      executorId: 'e1',
      config,
      sample: async () => host,
      freeSlots: () => 0,
      send: () => {
        calls++;
        return new Promise<void>(() => undefined); // never taken
      },
    });
    await waitFor(() => calls === 1, { message: 'the first send' });
    await reporter.stop(); // would never settle if it awaited the send nobody takes
    expect(calls).toBe(1);
  });

  it('sends nothing from a sample that was being read when it stopped', async () => {
    let calls = 0;
    let releaseSample: (() => void) | undefined;
    const reporter = startLoadReporter({
      executorId: 'e1',
      config,
      sample: () => new Promise<HostSample>((resolve) => (releaseSample = () => resolve(host))),
      freeSlots: () => 0,
      send: async () => void calls++,
    });
    await waitFor(() => releaseSample !== undefined, { message: 'the first sample being read' });
    await reporter.stop();
    releaseSample!();
    await new Promise((resolve) => setImmediate(resolve)); // the report's continuation has run
    expect(calls).toBe(0);
  });
});

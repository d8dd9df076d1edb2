import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileConfig, type HeraldConfig } from '@herald/core/config';
import { noopLogger } from '@herald/core/ports';
import { ListRepository } from '@herald/audience';
import { createLocalCoordinatorCluster } from '@herald/coordinator-local';
import { createPromMeter } from '@herald/metrics';
import {
  LevelAccountStore,
  LevelAttributeIndex,
  LevelCampaignStore,
  LevelFollowerStore,
  LevelTaskStore,
} from '@herald/store-level';
import { createPull, createPush, inprocEndpoint, type PullChannel, type PushChannel } from '@herald/transport';
import type { Open, TierAdapters } from './adapters';
import { buildController } from './controller';
import { buildDispatcher } from './dispatcher';
import { Resources } from './resources';
import { buildScheduler } from './scheduler';

/** Fails the test if a builder opens an adapter its tier must not use. */
const refused =
  (what: string): Open<never> =>
  async () => {
    throw new Error(`${what} must not be opened here`);
  };

describe('tier builders', () => {
  let dir: string;
  let config: HeraldConfig;
  let store: LevelTaskStore;
  let sockets: (PullChannel | PushChannel)[];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'herald-compose-'));
    config = compileConfig({ dataDir: dir });
    store = await LevelTaskStore.open(join(dir, 'tasks'));
    sockets = [];
  });

  afterEach(async () => {
    for (const socket of sockets) socket.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Adapters that lend the test's task store and refuse everything else unless given. */
  function adapters(extra: Partial<TierAdapters> = {}): TierAdapters {
    return {
      clock: { now: () => Date.now() },
      lists: new ListRepository(join(dir, 'lists')),
      taskStore: async () => store,
      accessStore: refused('the access store'),
      accountStore: refused('the account store'),
      campaignStore: refused('the campaign store'),
      frequencyCounter: refused('the frequency counter'),
      filterAudiences: refused('the filter audiences'),
      apiAudiences: refused('the API audiences'),
      userAttributes: refused('the user attributes'),
      coordinator: refused('the coordinator'),
      progressInCoordinator: false,
      ...extra,
    };
  }

  const observed = { logger: noopLogger, meter: createPromMeter({ defaultMetrics: false }) };
  let endpoints = 0;
  async function pull(): Promise<{ pull: PullChannel; endpoint: string }> {
    const endpoint = inprocEndpoint(`compose-test-${process.pid}-${++endpoints}`);
    const channel = await createPull({ name: endpoint, endpoint, highWaterMark: 16 });
    sockets.push(channel);
    return { pull: channel, endpoint };
  }
  async function push(endpoint: string): Promise<PushChannel> {
    const channel = await createPush({ name: `to ${endpoint}`, endpoints: [endpoint], highWaterMark: 16 });
    sockets.push(channel);
    return channel;
  }

  it('builds a controller that closes the coordinator it opened and leaves the lent store open', async () => {
    const campaigns = await LevelCampaignStore.open(join(dir, 'campaigns'));
    const accounts = await LevelAccountStore.open(join(dir, 'accounts'));
    let coordinatorClosed = false;
    const scope = new Resources();
    const { controller } = await buildController({
      config,
      id: 'controller-1',
      adapters: adapters({
        campaignStore: async () => campaigns,
        accountStore: async () => accounts,
        coordinator: async (s) =>
          s.add('coordinator', await createLocalCoordinatorCluster().connect(), (c) =>
            c.close().then(() => void (coordinatorClosed = true)),
          ),
      }),
      scope,
      links: async () => ({}),
      ...observed,
    });
    expect(typeof controller.isLeader()).toBe('boolean');
    await scope.closeAll();
    expect(coordinatorClosed).toBe(true);
    await expect(store.getTask(1)).resolves.toBeUndefined();
    await campaigns.close();
    await accounts.close();
  });

  it('records unit progress in the task store alone unless the profile says the coordinator, and never opens it then', async () => {
    const inbox = await pull();
    const dispatcher = await pull();
    const scope = new Resources();
    let closedLinks = 0;
    const { scheduler } = await buildScheduler({
      config,
      adapters: adapters(),
      scope,
      links: async () => ({
        inbox: inbox.pull,
        toDispatcher: await push(dispatcher.endpoint),
        close: () => void closedLinks++,
      }),
      ...observed,
    });
    expect(scheduler.stats().active).toBe(0);
    await scope.closeAll();
    expect(closedLinks).toBe(1);
  });

  it('opens the frequency counter for the filter chain only with frequency.enabled', async () => {
    const followers = await LevelFollowerStore.open(join(dir, 'followers'));
    const attributes = await LevelAttributeIndex.open(join(dir, 'attributes'));
    const inbox = await pull();
    const scheduler = await pull();
    for (const enabled of [false, true]) {
      const counterOpened = jest.fn(async () => ({}) as never);
      const scope = new Resources();
      await buildDispatcher({
        config: { ...config, frequency: { ...config.frequency, enabled } },
        adapters: adapters({
          filterAudiences: async () => ({ followers, attributes }),
          frequencyCounter: counterOpened,
        }),
        scope,
        links: async () => ({
          inbox: inbox.pull,
          toScheduler: await push(scheduler.endpoint),
          toExecutor: new Map(),
          toRealtimeExecutor: new Map(),
          close: () => undefined,
        }),
        ...observed,
      });
      expect(counterOpened).toHaveBeenCalledTimes(enabled ? 1 : 0);
      // Closing ends the dispatcher only once its inbox closes: close the test's inbox as the links would.
      const closing = scope.closeAll();
      inbox.pull.close();
      await closing;
      if (!enabled) Object.assign(inbox, await pull());
    }
    await followers.close();
    await attributes.close();
  });
});

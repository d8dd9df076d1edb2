import {
  createHostSampler,
  createLoginQueue,
  createUnitSlots,
  LoginDelivery,
  Personaliser,
  readProcCounters,
  speedShareOf,
  startExecutor,
  startLoadReporter,
  TaskCache,
  type ChannelHoldSource,
  type Executor,
  type FrequencyControl,
} from '@herald/executor';
import type { ExecutorAdapters } from './adapters';
import { frequencyCounterOf, type TierBuild } from './build';
import type { ExecutorLinks } from './links';

/** What an executor and the login walks deliver with. */
type DeliveryBuild = Omit<TierBuild<unknown>, 'links'> & { executor: ExecutorAdapters };

export interface ExecutorBuild<L extends ExecutorLinks> extends TierBuild<L> {
  id: string;
  executor: ExecutorAdapters;
  /**
   * Walks the offline lists of the users the inbox's user.logins name (sent
   * by a presence agent), with at most this many users waiting. Default: no
   * walks; user.logins are ignored.
   */
  maxLoginsPending?: number;
  /**
   * Tell the scheduler while the channel holds a batch (a paced gateway's
   * hold, in a unit.progress covering no recipients): only where the links
   * send unit.progress version 2 (the embedded profile; production once its
   * schedulers read it everywhere, docs/operations.md "Wire versions").
   * Default false.
   */
  reportChannelHolds?: boolean;
}

/**
 * Who delivers a batch or a login walk: the task cache, the offline store,
 * the gateway, frequency control (with frequency.enabled) and the
 * personaliser of template tasks, which reads the users' attributes.
 */
async function openDelivery(build: DeliveryBuild) {
  const { config, adapters, scope, logger } = build;
  const store = await adapters.taskStore(scope);
  const reports = adapters.eventBus === undefined ? undefined : await adapters.eventBus(scope);
  const offline = await build.executor.offline(scope);
  const confirmed = build.executor.confirmed === undefined ? undefined : await build.executor.confirmed(scope);
  const gateway = await build.executor.gateway(scope);
  const online = await build.executor.online(scope);
  // Counts what this executor delivers, and checks the budget again at login (docs/frequency.md).
  const counter = await frequencyCounterOf(build);
  const attributes = await adapters.userAttributes(scope);
  // Users' `tz` put each on their own local day (docs/frequency.md, "Time zones").
  const frequency: FrequencyControl | undefined =
    counter === undefined ? undefined : { policy: config.frequency.policy, counter, zones: attributes };
  // Template tasks' recipients' attributes, from the targeting store (docs/delivery.md).
  const personaliser = new Personaliser(attributes, logger);
  const tasks = new TaskCache(store);
  const records = adapters.deliveryRecords === undefined ? undefined : await adapters.deliveryRecords(scope);
  const logins = new LoginDelivery(
    offline,
    gateway,
    tasks,
    adapters.clock,
    frequency,
    personaliser,
    records,
    attributes,
  );
  return {
    store,
    reports,
    offline,
    confirmed,
    records,
    gateway,
    online,
    frequency,
    personaliser,
    tasks,
    logins,
    attributes,
  };
}

/** Delivers users' offline lists when they log in, as an executor does (the embedded profile's login()). */
export async function buildLoginDelivery(build: DeliveryBuild): Promise<LoginDelivery> {
  return (await openDelivery(build)).logins;
}

/**
 * An executor and its host-load reporter (the free sender slots its inboxes'
 * units leave, and this host's /proc readings, to every dispatcher each
 * load.reportIntervalMs). Stopping the scope stops the reports, closes its
 * links, then waits for the batch in hand.
 */
export async function buildExecutor<L extends ExecutorLinks>(
  build: ExecutorBuild<L>,
): Promise<{ executor: Executor; links: L }> {
  const { config, adapters, scope, id, logger, meter } = build;
  const parts = await openDelivery(build);
  const { store, reports, frequency, confirmed, records } = parts;
  const logins =
    build.maxLoginsPending === undefined
      ? undefined
      : createLoginQueue(parts.logins, { maxPending: build.maxLoginsPending, labels: { executor: id }, logger, meter });
  const links = await build.links(scope);
  const slots = createUnitSlots(config.load.senderSlots);
  const executor = startExecutor({
    id,
    inbox: slots.watch(links.inbox),
    ...(links.realtimeInbox ? { realtimeInbox: slots.watch(links.realtimeInbox) } : {}),
    toScheduler: links.toScheduler,
    tasks: parts.tasks,
    // A batch of a unit the store names another executor for is dropped (the unit moved: docs/operations.md "An executor lost").
    assignments: store,
    online: parts.online,
    gateway: parts.gateway,
    offline: parts.offline,
    ...(confirmed ? { confirmed } : {}),
    ...(records ? { records } : {}),
    ...(logins ? { logins } : {}),
    ...(reports ? { reports } : {}),
    ...(frequency ? { frequency } : {}),
    // Quiet hours with during 'offline' are judged in each recipient's tz (docs/local-time.md).
    zones: parts.attributes,
    personaliser: parts.personaliser,
    ...(build.reportChannelHolds === true && isChannelHoldSource(parts.gateway) ? { channel: parts.gateway } : {}),
    // Three repeats of a hold's report per stall period: a held executor's units are not run again (stall-watch.ts).
    holdReportEveryMs: Math.max(1, Math.floor(config.scheduler.unitStallMs / 3)),
    // A task with a speed is sent at it: each executor paces its share (docs/scheduling.md "Pacing").
    pacing: { speedOf: speedShareOf(store, id, adapters.clock) },
    clock: adapters.clock,
    logger,
    meter,
  });
  // Close every socket first: a send blocked on a peer that is gone would keep `done` from settling.
  scope.add('executor', executor, (e) => {
    links.close();
    return e.done;
  });
  const sample = createHostSampler(() => readProcCounters());
  scope.add(
    'load reports',
    startLoadReporter({
      executorId: id,
      config: config.load,
      sample,
      freeSlots: () => slots.free(),
      send: (m) => links.toDispatchers.send(m),
      logger,
    }),
    (r) => r.stop(),
  );
  return { executor, links };
}

/** Whether a gateway tells its hold (a PacedDeliveryGateway does; the file sink does not). */
function isChannelHoldSource(gateway: object): gateway is ChannelHoldSource {
  const candidate = gateway as Partial<ChannelHoldSource>;
  return typeof candidate.hold === 'function' && typeof candidate.watchHold === 'function';
}

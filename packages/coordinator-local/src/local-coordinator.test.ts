import { coordinatorConformance } from '@herald/testing';
import { createLocalCoordinatorCluster } from './local-coordinator';

coordinatorConformance('LocalCoordinator', async () => {
  const cluster = createLocalCoordinatorCluster();
  return { connect: () => cluster.connect(), cleanup: async () => {} };
});

describe('LocalCoordinator', () => {
  it('keeps clusters apart', async () => {
    const [one, two] = [createLocalCoordinatorCluster(), createLocalCoordinatorCluster()];
    const [a, b] = [await one.connect(), await two.connect()];
    await a.putCheckpoint({ taskId: 1, unitNo: 0, epoch: 1, checkpoint: 5, delivered: 5, offline: 0, at: 0 });
    expect(await b.listCheckpoints()).toEqual([]);
    const [ea, eb] = [await a.elect('controller', 'a'), await b.elect('controller', 'b')];
    expect(ea.isLeader() && eb.isLeader()).toBe(true);
    await Promise.all([a.close(), b.close()]);
  });

  it('logs a listener that throws and still tells the other listeners', async () => {
    const errors: string[] = [];
    const logger = { debug() {}, info() {}, warn() {}, error: (message: string) => errors.push(message) };
    const cluster = createLocalCoordinatorCluster({ logger });
    const [a, b] = [await cluster.connect(), await cluster.connect()];
    await a.elect('controller', 'a');
    const next = await b.elect('controller', 'b');
    const heard: boolean[] = [];
    next.onChange(() => {
      throw new Error('listener bug');
    });
    next.onChange((leader) => heard.push(leader));
    await a.close();
    expect(heard).toEqual([true]);
    expect(errors).toHaveLength(1);
    await b.close();
  });
});

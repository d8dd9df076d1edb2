import { noopLogger, TOPICS, topicCleanup } from '@herald/core/ports';
import type { Admin } from 'kafkajs';
import { Topics } from './topics';

/** An Admin that records CreateTopics requests (the mock cluster has no controller, so it cannot show them). */
function recordingAdmin(): { admin: Admin; created: unknown[] } {
  const created: unknown[] = [];
  const admin = {
    createTopics: async (request: { topics: unknown[] }) => {
      created.push(...request.topics);
      return true;
    },
  } as unknown as Admin;
  return { admin, created };
}

describe('Topics', () => {
  it('creates the presence topic compacted and the others with delete retention', async () => {
    const { admin, created } = recordingAdmin();
    const topics = new Topics(admin, true, { partitions: 6, replicationFactor: 3 }, noopLogger);
    await topics.ensure(`p-${TOPICS.presence}`, topicCleanup(TOPICS.presence));
    await topics.ensure(`p-${TOPICS.reports}`, topicCleanup(TOPICS.reports));
    expect(created).toEqual([
      {
        topic: `p-${TOPICS.presence}`,
        numPartitions: 6,
        replicationFactor: 3,
        configEntries: [{ name: 'cleanup.policy', value: 'compact' }],
      },
      {
        topic: `p-${TOPICS.reports}`,
        numPartitions: 6,
        replicationFactor: 3,
        configEntries: [{ name: 'cleanup.policy', value: 'delete' }],
      },
    ]);
  });

  it('creates each topic once', async () => {
    const { admin, created } = recordingAdmin();
    const topics = new Topics(admin, true, { partitions: 1, replicationFactor: 1 }, noopLogger);
    await Promise.all([topics.ensure('t', 'delete'), topics.ensure('t', 'delete')]);
    await topics.ensure('t', 'delete');
    expect(created).toHaveLength(1);
  });

  it('names an unknown topic delete', () => {
    expect(topicCleanup('somebody.elses')).toBe('delete');
    expect(topicCleanup(TOPICS.taskEvents)).toBe('delete');
  });
});

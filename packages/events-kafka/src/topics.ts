import type { Logger } from '@herald/core/ports';
import type { Admin } from 'kafkajs';
import { toHeraldError } from './errors';

/**
 * Creates each topic once, on its first use by this bus. Where the cluster
 * names a controller, with CreateTopics (`partitions` partitions; an existing
 * topic is left as it is). librdkafka's mock cluster reports no controller
 * (controller id 0, no such broker), so there a metadata request creates the
 * topic instead (the mock auto-creates, with its own default of 4 partitions),
 * as does a real cluster with `auto.create.topics.enable`.
 *
 * A topic this bus creates gets `cleanup.policy` from core's TOPIC_CLEANUP
 * (presence is compacted, so a bitmap rebuild sees every user's last event).
 * An auto-created or existing topic keeps the cluster's setting: the
 * operator sets it (docs/presence.md).
 */
export class Topics {
  private readonly ready = new Map<string, Promise<void>>();

  constructor(
    private readonly admin: Admin,
    private readonly canCreate: boolean,
    private readonly settings: { partitions: number; replicationFactor: number },
    private readonly logger: Logger,
  ) {}

  ensure(topic: string, cleanupPolicy: 'compact' | 'delete'): Promise<void> {
    let ready = this.ready.get(topic);
    if (ready === undefined) {
      ready = this.create(topic, cleanupPolicy);
      this.ready.set(topic, ready);
      ready.catch(() => this.ready.delete(topic)); // try again on next use
    }
    return ready;
  }

  private async create(topic: string, cleanupPolicy: 'compact' | 'delete'): Promise<void> {
    try {
      if (this.canCreate) {
        const created = await this.admin.createTopics({
          topics: [
            {
              topic,
              numPartitions: this.settings.partitions,
              replicationFactor: this.settings.replicationFactor,
              configEntries: [{ name: 'cleanup.policy', value: cleanupPolicy }],
            },
          ],
          waitForLeaders: true,
        });
        if (created)
          this.logger.info('kafka: created topic', { topic, partitions: this.settings.partitions, cleanupPolicy });
      } else {
        await this.admin.fetchTopicMetadata({ topics: [topic] });
      }
    } catch (error) {
      throw toHeraldError(error, `create topic ${topic}`);
    }
  }
}

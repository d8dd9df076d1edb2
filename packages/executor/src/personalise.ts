import { compileContent, renderContents, type CompiledContent } from '@herald/core/template';
import {
  noopLogger,
  type Delivery,
  type DeliveryGateway,
  type DeliveryResult,
  type Logger,
  type UserAttributeLookup,
} from '@herald/core/ports';
import type { TaskContent } from '@herald/core/task';
import type { UserAttributes } from '@herald/core/targeting';

/**
 * Personalised content on the send path (docs/delivery.md, "Personalised
 * content"). A plain task's batch goes to the gateway untouched, as before; a
 * template task's batch costs one attribute lookup (one call for the whole
 * batch) and one render per recipient over the template's pre-split parts.
 * Each task's template is parsed once per process, kept beside its cached
 * content object (TaskCache keeps the task, so the same object comes back).
 */
export class Personaliser {
  private readonly compiled = new WeakMap<TaskContent, CompiledContent>();
  private warned = false;

  /** Without `attributes`, every recipient gets each variable's default (or ''), logged once. */
  constructor(
    private readonly attributes?: UserAttributeLookup,
    private readonly logger: Logger = noopLogger,
  ) {}

  /** Hands `delivery` to `gateway`, with each recipient's own content when its task is a template. */
  deliver(gateway: DeliveryGateway, delivery: Delivery): Promise<DeliveryResult | void> {
    if (delivery.content.template !== true) return gateway.deliver(delivery);
    return this.deliverPersonal(gateway, delivery);
  }

  private async deliverPersonal(gateway: DeliveryGateway, delivery: Delivery): Promise<DeliveryResult | void> {
    let compiled = this.compiled.get(delivery.content);
    if (compiled === undefined) this.compiled.set(delivery.content, (compiled = compileContent(delivery.content)));
    const users = await this.lookup(delivery.uins);
    return gateway.deliver({ ...delivery, contents: renderContents(compiled, delivery.uins, users) });
  }

  private lookup(uins: Uint32Array): Promise<(UserAttributes | undefined)[]> {
    if (this.attributes !== undefined) return this.attributes.getUsers(uins);
    if (!this.warned) {
      this.warned = true;
      this.logger.warn('template task delivered without a user-attributes store: every variable takes its default');
    }
    return Promise.resolve(new Array<UserAttributes | undefined>(uins.length).fill(undefined));
  }
}

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
import { variantIndexOf, type TaskRollout } from '@herald/core/rollout';
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

  /**
   * Hands `delivery` to `gateway`, with each recipient's own content when its
   * task is a template, or its variant's content when the task splits its
   * audience into variants (`rollout`, docs/rollouts.md).
   */
  deliver(gateway: DeliveryGateway, delivery: Delivery, rollout?: TaskRollout): Promise<DeliveryResult | void> {
    if (rollout?.variants !== undefined) return this.deliverVariants(gateway, delivery, rollout);
    if (delivery.content.template !== true) return gateway.deliver(delivery);
    return this.deliverPersonal(gateway, delivery);
  }

  /**
   * Each recipient gets the content of the variant its uin hashes to (the same
   * placement the holdout link used, so a held-out uin never gets here; one
   * that did would get the task's own content). A template variant is
   * rendered per recipient, with one attribute lookup for the batch.
   */
  private async deliverVariants(
    gateway: DeliveryGateway,
    delivery: Delivery,
    rollout: TaskRollout,
  ): Promise<DeliveryResult | void> {
    const variants = rollout.variants!;
    const users = variants.some((v) => v.content.template === true) ? await this.lookup(delivery.uins) : undefined;
    const contents = Array.from(delivery.uins, (uin, i): TaskContent => {
      const at = variantIndexOf(uin, rollout.seed, variants, rollout.holdout ?? 0);
      const content = at < 0 ? delivery.content : variants[at]!.content;
      if (content.template !== true) return content;
      return renderContents(this.compiledOf(content), [uin], [users![i]])[0]!;
    });
    return gateway.deliver({ ...delivery, contents });
  }

  private compiledOf(content: TaskContent): CompiledContent {
    let compiled = this.compiled.get(content);
    if (compiled === undefined) this.compiled.set(content, (compiled = compileContent(content)));
    return compiled;
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

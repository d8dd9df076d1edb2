import {
  createPull,
  createPush,
  inprocEndpoint,
  type PullChannel,
  type PushChannel,
  type UnitProgressMessage,
} from '@herald/transport';
import type { Executor } from './executor';

/** An executor's links in a unit test (inproc): a dispatcher's push into its inbox, and its progress reports handed to `onProgress`. */
export interface ExecutorLinks {
  /** The executor's inbox and its link to the scheduler: pass them to startExecutor. */
  inbox: PullChannel;
  toScheduler: PushChannel;
  /** Sends batches into the inbox. */
  dispatcher: PushChannel;
  /** Closes the dispatcher and the inbox, waits for the executor to stop, then closes the scheduler side. */
  close(executor: Executor): Promise<void>;
}

export async function openExecutorLinks(
  name: string,
  onProgress: (progress: UnitProgressMessage) => void,
  /** Reports at the newest unit.progress version (as the embedded profile sends them). */
  sendNewest = false,
): Promise<ExecutorLinks> {
  const inbox = await createPull({ name, endpoint: inprocEndpoint(name), highWaterMark: 100 });
  const dispatcher = await createPush({ name: `dispatcher-${name}`, endpoints: [inbox.endpoint], highWaterMark: 100 });
  const schedulerInbox = await createPull({
    name: `scheduler-${name}`,
    endpoint: inprocEndpoint(`scheduler-${name}`),
    highWaterMark: 100,
  });
  const toScheduler = await createPush({
    name: `${name}-to-scheduler`,
    endpoints: [schedulerInbox.endpoint],
    highWaterMark: 100,
    sendNewest,
  });
  const received = (async () => {
    for await (const message of schedulerInbox.messages()) if (message.kind === 'unit.progress') onProgress(message);
  })();
  return {
    inbox,
    toScheduler,
    dispatcher,
    async close(executor) {
      dispatcher.close();
      inbox.close();
      await executor.done;
      toScheduler.close();
      schedulerInbox.close();
      await received;
    },
  };
}

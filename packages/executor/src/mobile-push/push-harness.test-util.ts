import type { ReceivedDelivery } from '@herald/testing';

/** One push a local FCM or APNs server accepted: the Herald fields it carried and the notification shown. */
export interface AcceptedPush {
  fields: Record<string, string>;
  title: string | undefined;
  body: string;
}

/**
 * Accepted pushes as the conformance suite's batches: grouped by the batch
 * key each carries, a new batch where a uin comes again (the same batch
 * delivered twice), uins ascending; `contents` only where the recipients got
 * different content (a personalised batch).
 */
export function batchesOf(accepted: AcceptedPush[]): ReceivedDelivery[] {
  const groups: { key: string; pushes: AcceptedPush[] }[] = [];
  for (const push of accepted) {
    const key = push.fields.batch!;
    let group = groups.find((g) => g.key === key && !g.pushes.some((p) => p.fields.uin === push.fields.uin));
    if (group === undefined) groups.push((group = { key, pushes: [] }));
    group.pushes.push(push);
  }
  return groups.map(({ pushes }) => {
    pushes.sort((a, b) => Number(a.fields.uin) - Number(b.fields.uin));
    const fields = pushes[0]!.fields;
    const contents = pushes.map(({ title, body }) => ({ body, ...(title === undefined ? {} : { title }) }));
    const differ = new Set(contents.map((c) => JSON.stringify(c))).size > 1;
    return {
      taskId: Number(fields.taskId),
      uins: pushes.map((p) => Number(p.fields.uin)),
      atLogin: fields.atLogin === 'true',
      content: contents[0]!,
      displayAt: fields.displayAt === undefined ? null : Number(fields.displayAt),
      ...(differ ? { contents } : {}),
    };
  });
}

import { emptyReport } from '@herald/core/task';
import type { TaskStore } from '@herald/core/ports';
import { rejectsWithCode } from '../assertions';
import { drive, fenceOf, newTask, NOW, TO_SENDING } from './fixtures';
import { describeTaskListing } from './listing';

/** createTask, getTask and the three read paths: listTasks, listLiveTasks, listTasksByContent. */
export function describeTaskReads(store: () => TaskStore): void {
  describe('createTask and getTask', () => {
    it('assigns positive integer ids that increase in creation order', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push((await store().createTask(newTask(), NOW)).id);
      for (const id of ids) {
        expect(Number.isSafeInteger(id)).toBe(true);
        expect(id).toBeGreaterThan(0);
      }
      for (let i = 1; i < ids.length; i++) expect(ids[i]!).toBeGreaterThan(ids[i - 1]!);
    });

    it('starts a task in CREATED with epoch 0, version 1, no owner and report = emptyReport(listCount)', async () => {
      const input = newTask({ listCount: 4321 });
      const task = await store().createTask(input, NOW);
      expect(task).toEqual({
        ...input,
        id: task.id,
        speed: null,
        targeting: null,
        noResendSince: null,
        state: 'CREATED',
        version: 1,
        epoch: 0,
        owner: null,
        filteredListId: null,
        report: emptyReport(4321),
        error: null,
        createdAt: NOW,
        updatedAt: NOW,
      });
    });

    it('reads back what it created; unknown ids read as undefined', async () => {
      const task = await store().createTask(newTask({ priority: 'realtime', content: { body: 'no title' } }), NOW);
      expect(await store().getTask(task.id)).toEqual(task);
      expect(await store().getTask(task.id + 1000)).toBeUndefined();
      expect(await store().getTask(987_654_321)).toBeUndefined();
    });

    it('keeps a display time (pre-delivery) through writes; a task without one has none', async () => {
      const shown = await store().createTask(newTask({ displayAt: NOW + 3_600_000 }), NOW);
      expect(shown.displayAt).toBe(NOW + 3_600_000);
      await drive(store(), shown, TO_SENDING);
      expect((await store().getTask(shown.id))?.displayAt).toBe(NOW + 3_600_000);
      const plain = await store().createTask(newTask(), NOW);
      expect(await store().getTask(plain.id)).not.toHaveProperty('displayAt');
      await rejectsWithCode(store().createTask(newTask({ displayAt: Number.NaN }), NOW), 'VALIDATION_FAILED');
    });

    it('keeps a no-resend bound (noResendSince) through writes; a task without one has null', async () => {
      const bounded = await store().createTask(newTask({ noResendSince: NOW - 7 * 86_400_000 }), NOW);
      expect(bounded.noResendSince).toBe(NOW - 7 * 86_400_000);
      await drive(store(), bounded, TO_SENDING);
      expect((await store().getTask(bounded.id))?.noResendSince).toBe(NOW - 7 * 86_400_000);
      const plain = await store().createTask(newTask(), NOW);
      expect(plain.noResendSince).toBeNull();
      expect((await store().getTask(plain.id))?.noResendSince).toBeNull();
      for (const noResendSince of [-1, 1.5, Number.NaN]) {
        await rejectsWithCode(store().createTask(newTask({ noResendSince }), NOW), 'VALIDATION_FAILED');
      }
    });

    it('keeps the speed a task asks for through writes; a task without one has speed null', async () => {
      const paced = await store().createTask(newTask({ speed: 2_500 }), NOW);
      expect(paced.speed).toBe(2_500);
      await drive(store(), paced, TO_SENDING);
      expect((await store().getTask(paced.id))?.speed).toBe(2_500);
      const fastest = await store().createTask(newTask({ speed: 100_000_000 }), NOW);
      expect((await store().getTask(fastest.id))?.speed).toBe(100_000_000);
      const plain = await store().createTask(newTask(), NOW);
      expect(plain.speed).toBeNull();
      expect((await store().getTask(plain.id))?.speed).toBeNull();
      for (const speed of [0, -1, 1.5, 100_000_001, Number.NaN]) {
        await rejectsWithCode(store().createTask(newTask({ speed }), NOW), 'VALIDATION_FAILED');
      }
    });

    it('keeps the targeting query a task was created with through writes; an untargeted task has targeting null', async () => {
      const query = 'region:eu AND (tag:beta OR age:18-24) AND NOT tag:churned AND active-since:30d';
      const targeted = await store().createTask(newTask({ targeting: query }), NOW);
      expect(targeted.targeting).toBe(query);
      await drive(store(), targeted, TO_SENDING);
      expect((await store().getTask(targeted.id))?.targeting).toBe(query);
      // Near the language's 4096 characters, each a two-byte character in UTF-8.
      const longest = Array.from({ length: 60 }, (_, i) => `tag:${String(i).padStart(2, '0')}${'é'.repeat(58)}`).join(
        ' OR ',
      );
      expect(
        (await store().getTask((await store().createTask(newTask({ targeting: longest }), NOW)).id))?.targeting,
      ).toBe(longest);
      const plain = await store().createTask(newTask(), NOW);
      expect(plain.targeting).toBeNull();
      expect((await store().getTask(plain.id))?.targeting).toBeNull();
      for (const targeting of ['', 'region:', 'colour:red', 'x'.repeat(4097)]) {
        await rejectsWithCode(store().createTask(newTask({ targeting }), NOW), 'QUERY_INVALID');
      }
    });

    it('keeps the collapse key a task was created with through writes; refuses a bad one naming the field', async () => {
      const key = `score.${'x'.repeat(117)}:A-9_`; // 128 characters, the most
      const keyed = await store().createTask(newTask({ collapseKey: key }), NOW);
      expect(keyed.collapseKey).toBe(key);
      await drive(store(), keyed, TO_SENDING);
      expect((await store().getTask(keyed.id))?.collapseKey).toBe(key);
      const plain = await store().createTask(newTask(), NOW);
      expect((await store().getTask(plain.id))?.collapseKey).toBeUndefined();
      for (const collapseKey of ['', 'x'.repeat(129), 'with space', 'é', 7 as unknown as string]) {
        const error = await rejectsWithCode(store().createTask(newTask({ collapseKey }), NOW), 'VALIDATION_FAILED');
        expect(error.details).toMatchObject({ field: 'collapseKey' });
      }
    });

    it('keeps the rollout a task was created with, and a canary report through writes; refuses bad ones naming the field', async () => {
      const rollout = {
        seed: 0xffffffff,
        canary: { sample: '1%', holdSeconds: 60, thresholds: { rejectedRatio: 0.05, failedRatio: 0.1 } },
        variants: [
          { name: 'a', share: 0.45, content: { body: 'A' } },
          { name: 'b', share: 0.45, content: { title: 'T', body: 'B {{uin}}', template: true as const } },
        ],
        holdout: 0.1,
      };
      const task = await store().createTask(newTask({ rollout }), NOW);
      expect(task.rollout).toEqual(rollout);
      const sending = await drive(store(), task, TO_SENDING);
      const canary = {
        sample: 12,
        state: 'failed' as const,
        holdUntil: NOW + 60_000,
        rejectedRatio: 0.3,
        failedRatio: 0,
      };
      await store().updateTask(task.id, fenceOf(sending), { report: { canary } }, NOW);
      await store().updateTask(task.id, fenceOf(sending), { report: { delivered: 9 } }, NOW);
      const stored = await store().getTask(task.id);
      expect(stored).toMatchObject({ rollout, report: { delivered: 9, canary } });
      expect((await store().getTask((await store().createTask(newTask(), NOW)).id))?.rollout).toBeUndefined();
      const bad = { ...rollout, variants: [rollout.variants[0]!, { ...rollout.variants[1]!, share: 0.5 }] };
      const error = await rejectsWithCode(store().createTask(newTask({ rollout: bad }), NOW), 'VALIDATION_FAILED');
      expect(error.details).toMatchObject({ field: 'variants' });
      const badCanary = { ...canary, state: 'maybe' } as unknown as typeof canary;
      const refused = await rejectsWithCode(
        store().updateTask(task.id, fenceOf(sending), { report: { canary: badCanary } }, NOW),
        'VALIDATION_FAILED',
      );
      expect(refused.details).toMatchObject({ field: 'canary' });
    });

    it('keeps the local time, quiet hours and local groups a task was given; refuses bad ones naming the field', async () => {
      const deliverAt = { localTime: '09:00', windowMs: 7_200_000, missed: 'skip' as const, defaultTimeZone: '+05:30' };
      const quietHours = { from: '22:00', to: '08:00' };
      const local = await store().createTask(newTask({ deliverAt, quietHours }), NOW);
      expect(local).toMatchObject({ deliverAt, quietHours });
      const localGroups = [
        {
          offsetMinutes: 330,
          releaseAt: NOW + 1000,
          start: 0,
          end: 4,
          skipped: false,
          released: true,
          delivered: 3,
          offline: 1,
        },
      ];
      const sending = await drive(store(), local, TO_SENDING);
      await store().updateTask(local.id, { epoch: sending.epoch }, { report: { localGroups } }, NOW + 1);
      expect(await store().getTask(local.id)).toMatchObject({ deliverAt, quietHours, report: { localGroups } });
      const plain = await store().createTask(newTask(), NOW);
      expect(await store().getTask(plain.id)).not.toHaveProperty('deliverAt');
      const bad = await rejectsWithCode(
        store().createTask(newTask({ deliverAt: { ...deliverAt, localTime: '9:00' } }), NOW),
        'VALIDATION_FAILED',
      );
      expect(bad.details).toMatchObject({ field: 'deliverAt' });
      const quiet = await rejectsWithCode(
        store().createTask(newTask({ quietHours: { from: '08:00', to: '08:00' } }), NOW),
        'VALIDATION_FAILED',
      );
      expect(quiet.details).toMatchObject({ field: 'quietHours' });
      // Queued offline and held at login (docs/local-time.md "Quiet hours"): kept; an unknown mode refused.
      const modes = { from: '22:00', to: '08:00', during: 'offline' as const, atLogin: 'hold' as const };
      const withModes = await store().createTask(newTask({ quietHours: modes }), NOW);
      expect((await store().getTask(withModes.id))?.quietHours).toEqual(modes);
      const unknownMode = await rejectsWithCode(
        store().createTask(newTask({ quietHours: { ...modes, during: 'later' as never } }), NOW),
        'VALIDATION_FAILED',
      );
      expect(unknownMode.details).toMatchObject({ field: 'quietHours' });
      const canary = { sample: '1%', holdSeconds: 60, thresholds: { rejectedRatio: 0.05, failedRatio: 0.1 } };
      for (const local of [{ deliverAt }, { quietHours }]) {
        const refused = await rejectsWithCode(
          store().createTask(newTask({ rollout: { seed: 1, canary }, ...local }), NOW),
          'VALIDATION_FAILED',
        );
        expect(refused.details).toMatchObject({ field: 'canary' });
      }
    });

    it('hands out copies: changing a returned task or the input changes nothing stored', async () => {
      const input = newTask();
      const task = await store().createTask(input, NOW);
      const snapshot = structuredClone(task);
      task.state = 'COMPLETED';
      task.report.kept = 99;
      input.content.body = 'mutated';
      const read = await store().getTask(task.id);
      expect(read).toEqual(snapshot);
      read!.report.delivered = 5;
      expect(await store().getTask(task.id)).toEqual(snapshot);
    });
  });

  describeTaskListing(store);

  describe('listLiveTasks', () => {
    it('returns every task not in a terminal state, ascending id', async () => {
      const t = [];
      for (let i = 0; i < 7; i++) t.push(await store().createTask(newTask(), NOW));
      await drive(store(), t[0]!, ['cancel']);
      await drive(store(), t[2]!, ['fail']);
      await drive(store(), t[3]!, ['enqueue', 'admit']);
      await drive(store(), t[4]!, [...TO_SENDING, 'complete']);
      await drive(store(), t[5]!, ['schedule', 'expire']);
      await drive(store(), t[6]!, ['enqueue', 'pause']);
      const live = await store().listLiveTasks();
      expect(live.map((x) => x.id)).toEqual([t[1]!.id, t[3]!.id, t[6]!.id]);
      expect(live.map((x) => x.state)).toEqual(['CREATED', 'PREPROCESSING', 'PAUSED']);
    });

    it('is empty on an empty store', async () => {
      expect(await store().listLiveTasks()).toEqual([]);
    });
  });

  describe('listTasksByContent', () => {
    it('returns only tasks of the same account and CRC whose filtered list exists', async () => {
      const withList = async (accountId: string, contentCrc: number, filtered: boolean) => {
        const task = await store().createTask(newTask({ accountId, contentCrc }), NOW);
        return filtered
          ? store().updateTask(task.id, fenceOf(task), { filteredListId: `filtered-${task.id}` }, NOW)
          : task;
      };
      const match1 = await withList('acct-a', 777, true);
      await withList('acct-a', 777, false);
      await withList('acct-b', 777, true);
      await withList('acct-a', 778, true);
      const match2 = await withList('acct-a', 777, true);
      const found = await store().listTasksByContent('acct-a', 777);
      expect(found.map((t) => t.id).sort((a, b) => a - b)).toEqual([match1.id, match2.id]);
      expect(found.find((t) => t.id === match2.id)).toEqual(match2);
      expect(await store().listTasksByContent('acct-c', 777)).toEqual([]);
      expect(await store().listTasksByContent('acct-a', 1)).toEqual([]);
    });

    it('follows filteredListId: a task whose list is cleared drops out', async () => {
      const task = await store().createTask(newTask({ contentCrc: 42 }), NOW);
      const set = await store().updateTask(task.id, fenceOf(task), { filteredListId: 'f-1' }, NOW);
      expect((await store().listTasksByContent(task.accountId, 42)).map((t) => t.id)).toEqual([task.id]);
      await store().updateTask(task.id, fenceOf(set), { filteredListId: null }, NOW);
      expect(await store().listTasksByContent(task.accountId, 42)).toEqual([]);
    });

    it('handles the whole u32 CRC range', async () => {
      for (const crc of [0, 0xffffffff]) {
        const task = await store().createTask(newTask({ contentCrc: crc }), NOW);
        await store().updateTask(task.id, fenceOf(task), { filteredListId: `f-${crc}` }, NOW);
        expect((await store().listTasksByContent(task.accountId, crc)).map((t) => t.id)).toEqual([task.id]);
      }
    });
  });
}

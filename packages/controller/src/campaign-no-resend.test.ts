/**
 * What a firing's task carries from its campaign's template (docs/campaigns.md,
 * "No-resend scope" and "Firing variables"): the content with the firing's
 * values filled in, its CRC, and how far back its no-resend filter looks.
 */
import { noopLogger } from '@herald/core/ports';
import { campaignTaskKey, type NewCampaign, type NoResend } from '@herald/core/campaign';
import { contentCrc } from '@herald/core/task';
import { LevelCampaignStore, LevelTaskStore } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import { runCampaignPass } from './campaign-pass';

const OPTIONS = { misfireGraceMs: 60_000, defaultTtlMs: 3_600_000 };
const created = Date.parse('2025-03-20T00:00:00Z');
// Monday 31 March 2025, 09:00 in Berlin: the first weekday after the clocks went forward.
const firing = Date.parse('2025-03-31T07:00:00Z');

let dir: TempDir;
let tasks: LevelTaskStore;
let campaigns: LevelCampaignStore;

beforeEach(async () => {
  dir = await makeTempDir('herald-campaign-no-resend-');
  tasks = await LevelTaskStore.open(`${dir.path}/tasks`);
  campaigns = await LevelCampaignStore.open(`${dir.path}/campaigns`);
  await tasks.putList({
    id: 'l_1',
    accountId: 'acme',
    count: 5,
    checksum: 1,
    sorted: true,
    unique: true,
    bytes: 40,
    createdAt: created,
  });
});

afterEach(async () => {
  await campaigns.close();
  await tasks.close();
  await dir.remove();
});

function campaign(
  noResend?: NoResend,
  content: NewCampaign['template']['content'] = { body: 'Good morning' },
): NewCampaign {
  return {
    accountId: 'acme',
    name: 'Morning',
    cron: '0 9 * * *',
    timeZone: 'Europe/Berlin',
    template: { listId: 'l_1', content, priority: 'normal', ...(noResend === undefined ? {} : { noResend }) },
  };
}

/** The task the campaign's 31 March firing created. */
async function firedTask(input: NewCampaign) {
  const { id } = await campaigns.createCampaign(input, created);
  const result = await runCampaignPass(
    { campaigns, store: tasks, logger: noopLogger, firings: { inc: () => undefined }, isLeader: () => true },
    OPTIONS,
    firing + 1000,
  );
  expect(result.fired).toBe(1);
  return (await tasks.getTaskByIdempotencyKey(campaignTaskKey(id, firing)))!;
}

it('scope content, or none: the task looks back without bound (noResendSince null), as before', async () => {
  expect((await firedTask(campaign())).noResendSince).toBeNull();
  expect((await firedTask(campaign({ scope: 'content' }))).noResendSince).toBeNull();
});

it('scope firing: the task counts only sends after its own scheduled time', async () => {
  const task = await firedTask(campaign({ scope: 'firing' }));
  expect(task.sendAt).toBe(firing);
  expect(task.noResendSince).toBe(firing);
  expect(task.contentCrc).toBe(contentCrc({ body: 'Good morning' }));
});

it("scope window: days on the campaign's wall clock (a week before, across the DST change), hours elapsed", async () => {
  expect((await firedTask(campaign({ scope: 'window', window: '7d' }))).noResendSince).toBe(
    Date.parse('2025-03-24T08:00:00Z'), // 09:00 CET
  );
  expect((await firedTask(campaign({ scope: 'window', window: '36h' }))).noResendSince).toBe(firing - 36 * 3_600_000);
});

it('fills the firing variables once per firing; a content with recipient variables stays a template', async () => {
  const plain = await firedTask(
    campaign(undefined, { body: 'Digest {{firing.date}} {{firing.time}}', template: true }),
  );
  expect(plain.content).toEqual({ body: 'Digest 2025-03-31 09:00' });
  expect(plain.contentCrc).toBe(contentCrc({ body: 'Digest 2025-03-31 09:00' }));
  const personal = await firedTask(
    campaign(undefined, { title: '{{firing.date}}', body: 'Hi {{region|default:"you"}}', template: true }),
  );
  expect(personal.content).toEqual({ title: '2025-03-31', body: 'Hi {{region|default:"you"}}', template: true });
});

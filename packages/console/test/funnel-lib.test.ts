import type { FunnelStage } from '../src/api/funnel-types';
import { funnelRows } from '../src/lib/funnel';

/** The task page's funnel rows, without a browser (task-funnel.test.ts drives the page). */
describe('funnelRows', () => {
  const stages: FunnelStage[] = [
    { stage: 'audience', of: null, count: 200 },
    { stage: 'removed', of: 'audience', link: 'blacklisted', count: 50, remaining: 150 },
    { stage: 'kept', of: 'audience', count: 150 },
    { stage: 'delivered_online', of: 'kept', count: 'unknown', reason: 'no records here' },
    { stage: 'dropped_at_login', of: 'queued_offline', why: 'over_frequency', count: 4 },
  ];

  it('labels each stage, keys it by its link or why, and gives its share of the audience', () => {
    expect(funnelRows(stages).map((r) => [r.key, r.label, r.depth, r.count, r.share])).toEqual([
      ['audience', 'Audience (as uploaded)', 0, 200, 1],
      ['removed:blacklisted', 'Removed: blacklisted (global or account)', 1, 50, 0.25],
      ['kept', 'Kept after filters', 1, 150, 0.75],
      ['delivered_online', 'Pushed online', 2, null, null],
      ['dropped_at_login:over_frequency', 'dropped at login: over the frequency limit', 3, 4, 0.02],
    ]);
  });

  it('carries an unknown count’s reason, and draws no share without an audience', () => {
    expect(funnelRows(stages)[3]!.note).toBe('no records here');
    const empty = funnelRows([{ stage: 'audience', of: null, count: 0 }]);
    expect(empty[0]!.share).toBeNull();
  });
});

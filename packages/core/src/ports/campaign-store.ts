import type {
  Campaign,
  CampaignFiring,
  CampaignPage,
  CampaignPatch,
  CampaignQuery,
  FiringPage,
  FiringQuery,
  NewCampaign,
  NewCampaignFiring,
} from '../campaign/model';

/**
 * The campaign store: cron campaigns (docs/campaigns.md) and the history of
 * their firings. It owns its connection; callers see only these methods.
 *
 * Contract, checked by the CampaignStore conformance suite
 * (packages/testing/src/campaign-store) for every adapter:
 * - Ids are positive integers, increasing in creation order.
 * - Inputs go through core's campaign record logic (newCampaignRecord,
 *   applyCampaignPatch, newFiringRecord, compile...Query): a bad field fails
 *   VALIDATION_FAILED naming it (`details.field`) and changes nothing; the
 *   time zone is stored in its canonical spelling.
 * - A missing campaign: `getCampaign` gives undefined, `deleteCampaign`
 *   false, `updateCampaign` and `advanceLastScheduled` fail
 *   CAMPAIGN_NOT_FOUND. Firings of a missing campaign are refused the same
 *   way by `recordFiring`, and list as empty.
 * - `updateCampaign` never changes `lastScheduledAt`; it moves `activeFrom`
 *   to `now` when it enables the campaign or changes cron or time zone.
 * - `advanceLastScheduled` is a compare-and-set: it sets `lastScheduledAt`
 *   to `next` only if it still holds `expected` (null: never set) and
 *   answers whether it did. Of two controllers that read the same value and
 *   both try to move it, exactly one succeeds.
 * - `recordFiring` is idempotent on (campaignId, scheduledAt): the first
 *   record wins, and every call answers the stored record (so a retry, or a
 *   second controller, learns what was recorded first).
 * - `listFirings` is newest first (by scheduledAt), keyset paged.
 * - `deleteCampaign` removes the campaign and its firing history (the tasks
 *   its firings created stay).
 * - `createCampaign` with an `idempotencyKey` a stored campaign holds answers
 *   that campaign and stores nothing (concurrent creations with one key
 *   store one campaign); `getCampaignByIdempotencyKey` finds it. A deleted
 *   campaign frees its key.
 * - A firing recorded with `manual: true` reads back with `manual: true`;
 *   any other reads back without the field.
 * - A firing recorded with a `runKey` reads back with it, and
 *   `getFiringByRunKey` finds it (any campaign's: the key is the caller's
 *   request, not the campaign's). Of firings recorded with one key the first
 *   keeps it: a later one is recorded without it. Deleting the campaign frees
 *   its firings' keys.
 * - Times are passed in (`now`, `at`, epoch ms integers); adapters never read a clock.
 */
export interface CampaignStore {
  createCampaign(input: NewCampaign, now: number): Promise<Campaign>;
  getCampaign(id: number): Promise<Campaign | undefined>;
  /** The campaign created with this key (NewCampaign.idempotencyKey), if any. */
  getCampaignByIdempotencyKey(key: string): Promise<Campaign | undefined>;
  /** Ascending id; filters combine (AND). */
  listCampaigns(query?: CampaignQuery): Promise<CampaignPage>;
  updateCampaign(id: number, patch: CampaignPatch, now: number): Promise<Campaign>;
  /** True when a campaign was deleted. */
  deleteCampaign(id: number): Promise<boolean>;
  /** Compare-and-set of lastScheduledAt from `expected` (null: unset) to `next` (> expected). */
  advanceLastScheduled(id: number, expected: number | null, next: number): Promise<boolean>;

  recordFiring(firing: NewCampaignFiring): Promise<CampaignFiring>;
  getFiring(campaignId: number, scheduledAt: number): Promise<CampaignFiring | undefined>;
  listFirings(campaignId: number, query?: FiringQuery): Promise<FiringPage>;
  /** The firing recorded with this run key (NewCampaignFiring.runKey), if any. */
  getFiringByRunKey(runKey: string): Promise<CampaignFiring | undefined>;

  close(): Promise<void>;
}

/**
 * The shapes of the HTTP API (docs/api.md) as the console reads them. The
 * console is a browser bundle and does not import @herald/core (CommonJS,
 * node:zlib); these mirror core's model, and test/contract.test.ts checks
 * the parts that must agree (states, filter reasons, commands).
 */

export const TASK_STATES = [
  'CREATED',
  'SCHEDULED',
  'QUEUED',
  'PREPROCESSING',
  'DISPATCHING',
  'SENDING',
  'PREEMPTED',
  'PAUSED',
  'COMPLETED',
  'CANCELLED',
  'FAILED',
  'EXPIRED',
] as const;
export type TaskState = (typeof TASK_STATES)[number];

export const TERMINAL_STATES: readonly TaskState[] = ['COMPLETED', 'CANCELLED', 'FAILED', 'EXPIRED'];

export const FILTER_REASONS = [
  'duplicate',
  'blacklisted',
  'already_sent',
  'not_follower',
  'over_frequency',
  'targeting',
  'held_out',
] as const;
export type FilterReason = (typeof FILTER_REASONS)[number];

export type PriorityClass = 'realtime' | 'normal';

export interface TaskReport {
  total: number;
  kept: number;
  removed: Partial<Record<FilterReason, number>>;
  delivered: number;
  offline: number;
  units: number;
  unitsDone: number;
  /** Recipients the delivery channel rejected for good, by its reason; absent: none. */
  deadLetters?: Record<string, number>;
  /** Set while the delivery channel holds the sending task; null or absent while it sends. */
  channel?: ChannelHold | null;
  /** A canary task's sample and where it stands (docs/rollouts.md, "Canary"). */
  canary?: CanaryReport;
  /** Clicks (and opens) an app backend reported, running totals (docs/rollouts.md, "Click-through"); absent: none. */
  engagement?: TaskEngagement;
}

export interface TaskEngagement {
  clicks: number;
  opens?: number;
  /** Epoch ms: when a report last raised a count. */
  reportedAt: number;
}

/** sampling: only the sample sends (then holds); passed / promoted: the rest runs; failed: the task paused itself. */
export type CanaryState = 'sampling' | 'passed' | 'failed' | 'promoted';
export interface CanaryReport {
  sample: number;
  state: CanaryState;
  holdUntil: number;
  rejectedRatio?: number;
  failedRatio?: number;
  /** Reported clicks over the sample's online deliveries, once judged with engagement reported. */
  clickThrough?: number;
}

/** A task's local-time delivery as stored (docs/local-time.md). */
export interface DeliverAt {
  localTime: string;
  windowMs: number;
  missed: 'next_day' | 'skip' | 'now';
  defaultTimeZone: string;
}

export interface CanarySpec {
  /** "1%" or a recipient count. */
  sample: string | number;
  holdSeconds: number;
  /** Ratios in [0, 1]; minClickThrough absent: click-through is not judged. */
  thresholds: { rejectedRatio: number; failedRatio: number; minClickThrough?: number };
}

export interface RolloutVariant {
  name: string;
  share: number;
  content: { body: string; title?: string; template?: true };
}

/** Canary and A/B settings as the task carries them (docs/rollouts.md). */
export interface TaskRollout {
  seed: number;
  canary?: CanarySpec;
  variants?: RolloutVariant[];
  holdout?: number;
}

export const CHANNEL_HOLD_STATES = ['throttled', 'unavailable'] as const;
export interface ChannelHold {
  state: (typeof CHANNEL_HOLD_STATES)[number];
  reason: string;
}

export interface Task {
  id: number;
  accountId: string;
  listId: string;
  state: TaskState;
  content: { body: string; title?: string; template?: true };
  priority: PriorityClass;
  sendAt: number;
  expiresAt: number;
  /** Pre-delivery: when recipients' devices show it (absent: on arrival). */
  displayAt?: number | null;
  /** Recipients per second it is paced at; null: not paced. */
  speed?: number | null;
  /** `campaign:<id>:<scheduledAt>` for a campaign's firing, `api:<account>:<key>` for a keyed create. */
  idempotencyKey?: string | null;
  deliverAt?: DeliverAt;
  /** As stored: `during` only when 'offline' (queued for the next login), `atLogin` only when 'hold' (the account's loginDelivery). */
  quietHours?: { from: string; to: string; during?: 'offline'; atLogin?: 'hold' };
  collapseKey?: string;
  rollout?: TaskRollout;
  listCount: number;
  owner: string | null;
  /** The sorted, filtered list; set when pre-processing ends. */
  filteredListId: string | null;
  report: TaskReport;
  error: { code: string; message: string } | null;
  createdAt: number;
  updatedAt: number;
}

/**
 * POST /api/v1/tasks?dryRun=true: what the same body would create, created
 * nowhere. `recipients.removed` is per filter reason; `confirmationRequired`
 * says the real create will answer 409 CONFIRMATION_REQUIRED without `confirm`.
 */
export interface DryRunAnswer {
  dryRun: true;
  recipients: {
    listed: number;
    /** Null when the answering process cannot run the filter chain: only the list's size is known. */
    kept: number | null;
    removed: Partial<Record<FilterReason | string, number>> | null;
    /** Set for a list too large to filter whole: the recipients of the sample filtered, the counts scaled from it. */
    sampled?: number;
  };
  confirmationRequired: boolean;
  sendAt: number;
  expiresAt: number;
  /** How long the send would take at the task's speed; null without a speed (the cluster's load decides). */
  estimatedSendMs: number | null;
}

/** error.details of a 409 CONFIRMATION_REQUIRED: the list's size and the account's threshold. */
export interface ConfirmationRequired {
  recipients: number;
  threshold: number;
}

export interface TaskPage {
  tasks: Task[];
  nextCursor: number | null;
}

export interface BadLine {
  line: number;
  reason: string;
}

export interface ListMeta {
  id: string;
  accountId: string;
  count: number;
  bytes: number;
  createdAt: number;
  import?: {
    uploadBytes: number;
    lines: number;
    valid: number;
    bad: Record<string, number> & { total: number };
    /** The first bad lines, 1-based, with why (the server names up to ten). */
    firstBad?: BadLine[];
  };
}

export interface Me {
  tokenId: string;
  name: string;
  role: 'admin' | 'operator';
  /** Accounts this token may act for; an admin may also type any account. */
  accounts: string[];
}

export interface ClusterMember {
  id: string;
  state: string;
  takesWork: boolean;
  ringShare: number;
  liveTasks: number;
  lastHeardAgoMs?: number;
}

/** An executor host's last load report (load-aware dispatch, docs/scheduling.md) and how old it is. */
export interface ExecutorHostLoad {
  executorId: string;
  cpuCores: number;
  /** Busy share of the host's CPU over the last interval, thousandths. */
  cpuBusyPermille: number;
  memTotalBytes: number;
  memAvailableBytes: number;
  nicCapacityBytesPerSecond: number;
  nicBytesPerSecond: number;
  senderSlots: number;
  senderSlotsFree: number;
  ageMs: number;
}

export interface ClusterView {
  apta: boolean;
  self?: { id: string; state: string };
  ring: string[];
  members: ClusterMember[];
  unownedLiveTasks: number;
  /** Only where a dispatcher runs in the answering process (embedded); production dispatchers list theirs on their management endpoint. */
  hosts?: ExecutorHostLoad[];
}

/** What counts as already sent for a campaign's firing (docs/campaigns.md, "No-resend scope"); absent: 'content'. */
export type NoResend = { scope: 'content' } | { scope: 'firing' } | { scope: 'window'; window: string };

export interface CampaignTemplate {
  listId: string;
  content: { body: string; title?: string; template?: boolean };
  priority: PriorityClass;
  ttlSeconds?: number;
  targeting?: string;
  noResend?: NoResend;
  /** Each firing's local-time delivery and quiet hours, as the request wrote them (docs/local-time.md). */
  deliverAt?: { localTime: string; window?: string; missed?: 'next_day' | 'skip' | 'now'; defaultTimeZone?: string };
  quietHours?: string | { hours: string; during?: 'hold' | 'offline' };
  /** Each firing's collapse key, canary and A/B variants (docs/campaigns.md, "Template"); a seed is drawn per firing. */
  collapseKey?: string;
  canary?: CanarySpec;
  variants?: RolloutVariant[];
  holdout?: number;
}

/** A cron campaign (docs/campaigns.md) as the API answers it, with its next fire times (ISO 8601, UTC; none while disabled). */
export interface Campaign {
  id: number;
  accountId: string;
  name: string;
  cron: string;
  timeZone: string;
  enabled: boolean;
  template: CampaignTemplate;
  createdAt: number;
  updatedAt: number;
  lastScheduledAt?: number;
  /** `api:<account>:<key>` when it was created with an Idempotency-Key. */
  idempotencyKey?: string;
  nextFireTimes: string[];
  /** Absent from servers older than the broadcast guard. */
  projectedDailyReach?: ProjectedDailyReach;
}

/**
 * What a campaign would send in a day (issue 15): firings a day times the
 * list's recipients, so an operator sees the reach before enabling it.
 */
export interface ProjectedDailyReach {
  /** Averaged over the next week: 5/7 for a weekday-only daily cron. */
  firingsPerDay: number;
  /** The template list's recipients; null when the list is gone. */
  recipientsPerFiring: number | null;
  recipientsPerDay: number | null;
}

export interface CampaignPage {
  campaigns: Campaign[];
  nextCursor: number | null;
}

export interface CampaignFiring {
  campaignId: number;
  scheduledAt: number;
  outcome: 'fired' | 'missed';
  taskId: number | null;
  reason: string | null;
  at: number;
  /** True for an operator's "Run now" (POST /api/v1/campaigns/:id/run); absent for the schedule's firings. */
  manual?: true;
  /** A fired firing that reached nobody, in words ('reached_nobody_already_sent'); absent from older servers. */
  note?: { code: string; message: string } | null;
}

export interface FiringPage {
  firings: CampaignFiring[];
  nextCursor: number | null;
}

/** GET /api/v1/templates/preview: a content template rendered for one uin (docs/delivery.md). */
export interface TemplatePreview {
  uin: number;
  content: { body: string; title?: string };
  /** store: the user's attributes; none: no such user in the store; defaults: an operator's preview (attributes are for admins). */
  attributes: 'store' | 'none' | 'defaults';
}

export interface CronPreview {
  cron: string;
  timeZone: string;
  nextFireTimes: string[];
}

/** A job building a list from an audience source (POST /api/v1/audiences; docs/audience-sources.md). */
export interface AudienceJob {
  id: string;
  accountId: string;
  source: { kind: string; query?: string };
  state: 'running' | 'done' | 'failed' | 'cancelled';
  /** The list the job writes; it exists once the job is done. */
  listId: string;
  createdAt: number;
  finishedAt: number | null;
  progress: { uins: number; bad: Record<string, number> };
  list?: ListMeta;
  error?: { code: string; message: string; details?: Record<string, unknown> };
}

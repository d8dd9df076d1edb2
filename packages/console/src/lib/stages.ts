import { TERMINAL_STATES, type Task, type TaskState } from '../api/types';
import { fmtShare } from './format';

/**
 * Where a broadcast is, stage by stage: what the task page draws as bars.
 * Derived from the task alone (state + report), so a list row and the task
 * page always agree.
 */
export type StageStatus = 'waiting' | 'running' | 'done' | 'halted';

export interface Stage {
  key: 'preprocessing' | 'dispatch' | 'delivery' | 'offline';
  label: string;
  status: StageStatus;
  /** 0..1, or null while the stage cannot measure itself yet (e.g. pre-processing runs as one step). */
  fraction: number | null;
  detail: string;
}

const BEFORE_PREPROCESSING: readonly TaskState[] = ['CREATED', 'SCHEDULED', 'QUEUED'];

/** Recipients confirmed so far: pushed online or queued offline. */
export const confirmed = (task: Task): number => task.report.delivered + task.report.offline;

/**
 * Pre-processing has produced its report (kept, removed, units) once the
 * filtered list exists. (report.total is the list's count from creation on,
 * so it says nothing about pre-processing.)
 */
export function preprocessed(task: Task): boolean {
  return (
    task.filteredListId !== null ||
    task.report.units > 0 ||
    ['DISPATCHING', 'SENDING', 'PREEMPTED', 'COMPLETED'].includes(task.state)
  );
}

export function taskStages(task: Task): Stage[] {
  const r = task.report;
  const terminal = TERMINAL_STATES.includes(task.state);
  const halted = terminal && task.state !== 'COMPLETED';
  const paused = task.state === 'PAUSED' || task.state === 'PREEMPTED';
  const stopped = (s: StageStatus): StageStatus => (s === 'running' && (halted || paused) ? 'halted' : s);
  const pre = preprocessed(task);
  const n = (x: number) => x.toLocaleString('en-US');

  const preStatus: StageStatus = pre
    ? 'done'
    : task.state === 'PREPROCESSING'
      ? 'running'
      : BEFORE_PREPROCESSING.includes(task.state) || task.state === 'PAUSED'
        ? 'waiting'
        : halted
          ? 'halted'
          : 'waiting';
  const removed = r.total - r.kept;
  const preprocessing: Stage = {
    key: 'preprocessing',
    label: 'Pre-processing',
    status: preStatus,
    fraction: pre ? 1 : null,
    detail: pre
      ? `${n(r.kept)} kept of ${n(r.total)} (${n(removed)} removed), ${n(r.units)} unit(s)`
      : task.state === 'PREPROCESSING'
        ? 'sorting and filtering the list'
        : `${n(task.listCount)} recipients in the list`,
  };

  const unitsFraction = r.units > 0 ? r.unitsDone / r.units : pre && r.kept === 0 ? 1 : 0;
  const dispatch: Stage = {
    key: 'dispatch',
    label: 'Dispatch',
    status: stopped(!pre ? 'waiting' : unitsFraction >= 1 ? 'done' : 'running'),
    fraction: pre ? unitsFraction : 0,
    detail: pre
      ? `${n(r.unitsDone)} of ${n(r.units)} unit(s) finished (a unit finishes when all its recipients are confirmed)`
      : 'waiting for pre-processing',
  };

  const sent = confirmed(task);
  // Counts before pre-processing (a report restored with the task) draw nothing: no stage after it has begun.
  const deliveryFraction = !pre ? 0 : r.kept > 0 ? sent / r.kept : 1;
  const delivery: Stage = {
    key: 'delivery',
    label: 'Delivery',
    status: stopped(!pre ? 'waiting' : task.state === 'COMPLETED' || deliveryFraction >= 1 ? 'done' : 'running'),
    fraction: deliveryFraction,
    detail: `${n(sent)} of ${n(r.kept)} confirmed: ${n(r.delivered)} pushed online, ${n(r.offline)} queued offline`,
  };

  const offline: Stage = {
    key: 'offline',
    label: 'Offline queued',
    status: stopped(!pre ? 'waiting' : delivery.status === 'done' ? 'done' : 'running'),
    fraction: pre && r.kept > 0 ? r.offline / r.kept : 0,
    detail: `${n(r.offline)} recipients were offline: delivered at their next login, until the task expires`,
  };
  return [preprocessing, dispatch, delivery, offline];
}

/** One colour of a progress bar: a share of the whole (null: not measurable, drawn moving while it runs). */
export interface BarSegment {
  fraction: number | null;
  tone: 'online' | 'offline';
  title?: string;
}

/** Delivery as two colours, pushed online then queued offline, each a share of the recipients kept. */
export function deliverySegments(task: Task): BarSegment[] {
  const r = task.report;
  return r.kept > 0 && preprocessed(task)
    ? [
        { fraction: r.delivered / r.kept, tone: 'online', title: 'pushed online' },
        { fraction: r.offline / r.kept, tone: 'offline', title: 'queued offline' },
      ]
    : [{ fraction: 0, tone: 'online' }];
}

/** What a stage's bar draws. Its filled share is the stage's fraction, the number beside it (stagePercent). */
export function stageSegments(task: Task, stage: Stage): BarSegment[] {
  if (stage.key === 'delivery' && task.report.kept > 0 && preprocessed(task)) return deliverySegments(task);
  return [{ fraction: stage.fraction, tone: stage.key === 'offline' ? 'offline' : 'online' }];
}

/**
 * A task list row's progress: the delivery stage's bar and number, or null
 * before pre-processing (the row then says where the task is in words).
 */
export function taskRowProgress(task: Task): { segments: BarSegment[]; text: string } | null {
  if (!preprocessed(task)) return null;
  const delivery = taskStages(task).find((stage) => stage.key === 'delivery')!;
  return { segments: stageSegments(task, delivery), text: task.report.kept > 0 ? stagePercent(delivery) : '–' };
}

/** The percentage beside a stage's bar: '' while it cannot measure itself. */
export function stagePercent(stage: Stage): string {
  return stage.fraction === null ? '' : fmtShare(stage.fraction);
}

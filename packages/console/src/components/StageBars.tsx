import type { Task } from '../api/types';
import { stagePercent, stageSegments, taskStages, type Stage } from '../lib/stages';
import { Bar } from './bits';

const STATUS_TEXT: Record<Stage['status'], string> = {
  waiting: 'waiting',
  running: 'running',
  done: 'done',
  halted: 'halted',
};

/** The four stages of one broadcast, each a bar with what it has done so far. */
export function StageBars({ task }: { task: Task }) {
  // The number and the bar come from one fraction (lib/stages.ts), rounded one way (lib/format.ts fmtShare).
  return (
    <div className="stages">
      {taskStages(task).map((stage) => (
        <div key={stage.key} className={`stage ${stage.status}`} data-stage={stage.key}>
          <div className="stage-head">
            <span className="stage-label">{stage.label}</span>
            <span className={`stage-status ${stage.status}`}>{STATUS_TEXT[stage.status]}</span>
            <span className="stage-pct">{stagePercent(stage)}</span>
          </div>
          <Bar label={stage.label} status={stage.status} segments={stageSegments(task, stage)} />
          <div className="stage-detail small muted">{stage.detail}</div>
        </div>
      ))}
    </div>
  );
}

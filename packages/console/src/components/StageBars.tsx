import type { Task } from '../api/types';
import { taskStages, type Stage } from '../lib/stages';
import { Bar } from './bits';

const STATUS_TEXT: Record<Stage['status'], string> = {
  waiting: 'waiting',
  running: 'running',
  done: 'done',
  halted: 'halted',
};

/** The four stages of one broadcast, each a bar with what it has done so far. */
export function StageBars({ task }: { task: Task }) {
  const r = task.report;
  return (
    <div className="stages">
      {taskStages(task).map((stage) => (
        <div key={stage.key} className={`stage ${stage.status}`} data-stage={stage.key}>
          <div className="stage-head">
            <span className="stage-label">{stage.label}</span>
            <span className={`stage-status ${stage.status}`}>{STATUS_TEXT[stage.status]}</span>
            <span className="stage-pct">{stage.fraction === null ? '' : `${(stage.fraction * 100).toFixed(1)}%`}</span>
          </div>
          <Bar
            label={stage.label}
            status={stage.status}
            segments={
              stage.key === 'delivery' && r.kept > 0
                ? [
                    { fraction: r.delivered / r.kept, tone: 'online', title: 'pushed online' },
                    { fraction: r.offline / r.kept, tone: 'offline', title: 'queued offline' },
                  ]
                : [{ fraction: stage.fraction, tone: stage.key === 'offline' ? 'offline' : 'online' }]
            }
          />
          <div className="stage-detail small muted">{stage.detail}</div>
        </div>
      ))}
    </div>
  );
}

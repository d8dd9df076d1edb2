import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../api/client';
import type { TaskRecipientFate } from '../api/fate-types';
import type { Task } from '../api/types';
import { fateInWords, fateNotes, fateTone, uinProblem } from '../lib/fate-words';
import { Link } from '../router';

/**
 * "Look up a recipient" on the task page: a uin in, its fate in this task
 * out, in words (GET /api/v1/tasks/:id/recipients/:uin). A uin that is no
 * uin is refused here, in the operator's words, and never sent; the server's
 * refusals (outside its uin space, a task not filtered yet) are shown as it
 * words them.
 */
export function RecipientLookup({ task }: { task: Task }) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [answer, setAnswer] = useState<TaskRecipientFate | null>(null);
  const [busy, setBusy] = useState(false);

  const lookUp = async (event: FormEvent) => {
    event.preventDefault();
    const refused = uinProblem(text);
    setProblem(refused);
    setAnswer(null);
    if (refused !== null) return;
    setBusy(true);
    try {
      setAnswer(await api<TaskRecipientFate>('GET', `/api/v1/tasks/${task.id}/recipients/${text.trim()}`));
    } catch (caught) {
      setProblem(caught instanceof ApiError ? caught.message : String(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="panel recipient-lookup">
      <h2>Look up a recipient</h2>
      <form className="inline-form" onSubmit={(e) => void lookUp(e)} noValidate>
        <label htmlFor="lookup-uin">uin</label>
        <input
          id="lookup-uin"
          inputMode="numeric"
          autoComplete="off"
          placeholder="e.g. 123456"
          value={text}
          aria-invalid={problem !== null}
          aria-describedby={problem !== null ? 'lookup-problem' : undefined}
          onChange={(e) => setText(e.target.value)}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Looking up…' : 'Look up'}
        </button>
      </form>
      {problem !== null && (
        <p id="lookup-problem" className="field-error" role="alert">
          {problem}
        </p>
      )}
      {answer !== null && (
        <div className="fate-answer" role="status">
          <p className={`fate ${fateTone(answer)}`} data-fate={answer.fate}>
            uin {answer.uin}: {fateInWords(answer)}
          </p>
          {fateNotes(answer) !== '' && <p className="small muted">{fateNotes(answer)}</p>}
          <p className="small">
            <Link to={`/recipients/${answer.uin}?account=${encodeURIComponent(task.accountId)}`}>
              Every broadcast of {task.accountId} to uin {answer.uin}
            </Link>
          </p>
        </div>
      )}
    </div>
  );
}

import { useState, type FormEvent } from 'react';
import { uinProblem } from '../lib/fate-words';
import { navigate } from '../router';

/** The top bar's "Recipient" box: a uin opens its recipient page; a uin that is no uin is said under it, not sent. */
export function RecipientSearch() {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const open = (event: FormEvent) => {
    event.preventDefault();
    const refused = uinProblem(text);
    setProblem(refused);
    if (refused !== null) return;
    navigate(`/recipients/${text.trim()}`);
    setText('');
  };
  return (
    <form className="recipient-search" role="search" aria-label="Find a recipient" onSubmit={open} noValidate>
      <input
        aria-label="Recipient uin"
        placeholder="Recipient uin"
        inputMode="numeric"
        autoComplete="off"
        value={text}
        aria-invalid={problem !== null}
        title={problem ?? 'Open a recipient’s broadcasts'}
        onChange={(e) => {
          setText(e.target.value);
          setProblem(null);
        }}
      />
      {problem !== null && (
        <span className="search-problem" role="alert">
          {problem}
        </span>
      )}
    </form>
  );
}

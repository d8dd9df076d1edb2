import { useEffect, useRef, useState, type FormEvent, type RefObject } from 'react';
import type { ConfirmationRequired } from '../api/types';
import { fmtInt } from '../lib/format';
import { typedCountMatches } from '../lib/large-send';

/**
 * The question the server asks before a large broadcast (409
 * CONFIRMATION_REQUIRED), put to the operator in full: the audience size in
 * words they cannot skim past, and the number to type before the send
 * button wakes up. A stray Enter or double click cannot confirm it.
 * Escape, Cancel or a click outside closes it with nothing created.
 *
 * A native modal <dialog>: the browser keeps focus inside it and turns
 * Escape into a cancel event; closed, focus returns to what opened it.
 */
export function ConfirmSendDialog({
  ask,
  busy,
  onConfirm,
  onClose,
  opener,
}: {
  ask: ConfirmationRequired;
  busy: boolean;
  onConfirm: () => void;
  onClose: () => void;
  /** The control that opened it, for focus to return to (a busy button lost focus while the server answered). */
  opener: RefObject<HTMLElement | null>;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [typed, setTyped] = useState('');
  const people = fmtInt(ask.recipients);
  const matches = typedCountMatches(typed, ask.recipients);

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      dialog?.close();
      // The page unmounts the dialog, so the browser does not give focus back itself.
      opener.current?.focus();
    };
  }, [opener]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (matches && !busy) onConfirm();
  };

  return (
    <dialog
      ref={ref}
      className="confirm-send"
      aria-labelledby="confirm-send-title"
      onCancel={(event) => {
        // Escape: close through React's state, so the page and the dialog agree.
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        if (event.target === ref.current) onClose();
      }}
    >
      <form onSubmit={submit}>
        <h2 id="confirm-send-title">You are about to send to {people} people</h2>
        <p>
          This broadcast goes to <strong>{people}</strong> recipients, more than this account's confirmation threshold
          of {fmtInt(ask.threshold)}, and it starts soon. A message sent cannot be taken back.
        </p>
        <label htmlFor="confirm-count">
          Type the number of recipients, <strong>{people}</strong>, to confirm
        </label>
        <input
          id="confirm-count"
          autoComplete="off"
          inputMode="numeric"
          autoFocus
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          aria-invalid={typed !== '' && !matches}
        />
        {typed !== '' && !matches && <div className="small error-text">That is not {people}.</div>}
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="danger" disabled={!matches || busy}>
            {busy ? 'Sending…' : `Send to ${people} people`}
          </button>
        </div>
      </form>
    </dialog>
  );
}

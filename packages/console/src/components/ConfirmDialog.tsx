import { useEffect, useRef, type ReactNode, type RefObject } from 'react';

/**
 * A yes-or-no question put in a native modal <dialog>, the way the
 * large-send confirmation asks (ConfirmSendDialog): the browser keeps focus
 * inside and turns Escape into a cancel event; focus starts on the safe
 * answer, so a stray Enter takes nothing; closed (Escape, the safe answer, a
 * click outside, or done), focus returns to the control that opened it.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  busyLabel,
  keepLabel,
  busy,
  onConfirm,
  onClose,
  opener,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busyLabel: string;
  keepLabel: string;
  busy: boolean;
  onConfirm: () => void;
  onClose: () => void;
  /** The control that opened it, for focus to return to. */
  opener: RefObject<HTMLElement | null>;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const keep = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    keep.current?.focus();
    return () => {
      dialog?.close();
      // The page unmounts the dialog, so the browser does not give focus back itself.
      opener.current?.focus();
    };
  }, [opener]);

  return (
    <dialog
      ref={ref}
      className="confirm-dialog"
      aria-labelledby="confirm-dialog-title"
      aria-describedby="confirm-dialog-body"
      onCancel={(event) => {
        // Escape: close through React's state, so the page and the dialog agree.
        event.preventDefault();
        if (!busy) onClose();
      }}
      onClick={(event) => {
        if (event.target === ref.current && !busy) onClose();
      }}
    >
      <div className="confirm-dialog-inner">
        <h2 id="confirm-dialog-title">{title}</h2>
        <div id="confirm-dialog-body">{children}</div>
        <div className="actions">
          <button ref={keep} type="button" onClick={onClose} disabled={busy}>
            {keepLabel}
          </button>
          <button type="button" className="danger" onClick={onConfirm} disabled={busy}>
            {busy ? busyLabel : confirmLabel}
          </button>
        </div>
      </div>
    </dialog>
  );
}

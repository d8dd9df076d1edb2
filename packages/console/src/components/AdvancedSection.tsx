import { useEffect, useState, type ReactNode } from 'react';

/**
 * A form's progressive disclosure: a panel closed by default, its summary
 * saying what is set inside, that opens by itself when one of its fields
 * has an error (the console's check or the server's refusal), so no error
 * hides in a closed section.
 */
export function AdvancedSection({
  title,
  summary,
  hasError,
  children,
}: {
  title: string;
  summary: string;
  hasError: boolean;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (hasError) setOpen(true);
  }, [hasError]);
  return (
    <details className="panel advanced" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        <h2>{title}</h2>
        <span className="small muted" data-advanced-summary>
          {summary}
        </span>
      </summary>
      {children}
    </details>
  );
}

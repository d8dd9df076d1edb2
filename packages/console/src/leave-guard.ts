import { useCallback, useEffect, useRef } from 'react';
import { setLeaveGuard } from './router';

/**
 * While `dirty`, leaving the page asks first: a link in the console opens
 * a confirm (Cancel stays), and closing or reloading the tab gets the
 * browser's own "leave site?" prompt. `release()` lets the page itself move
 * on, e.g. to the task it has just created.
 */
export function useLeaveGuard(dirty: boolean, question: string): () => void {
  const dirtyRef = useRef(dirty);
  dirtyRef.current = dirty;
  useEffect(() => {
    const beforeUnload = (event: BeforeUnloadEvent) => {
      if (!dirtyRef.current) return;
      event.preventDefault();
      // Chromium still wants returnValue set to show its prompt.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', beforeUnload);
    setLeaveGuard(() => !dirtyRef.current || window.confirm(question));
    return () => {
      window.removeEventListener('beforeunload', beforeUnload);
      setLeaveGuard(null);
    };
  }, [question]);
  return useCallback(() => {
    dirtyRef.current = false;
  }, []);
}

/** The exit status a shell reports for a process ended by the signal: 128 + its number. */
const EXIT_STATUS: Record<'SIGINT' | 'SIGTERM', number> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Resolves on the first SIGINT or SIGTERM: the caller then stops what it
 * runs. A second one while it stops exits the process at once, with the
 * status a shell gives a process killed by that signal: an operator's way out
 * of a stop that hangs (a client stalled mid-upload under a long
 * http.shutdownGraceMs, a store that no longer answers) without reaching for
 * SIGKILL. Nothing is lost by it that a crash would not lose: work resumes
 * from its checkpoints.
 */
export function firstStopSignal(stderr: NodeJS.WritableStream = process.stderr): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let first: NodeJS.Signals | undefined;
    const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
      if (first === undefined) {
        first = signal;
        resolve(signal);
        return;
      }
      stderr.write(`herald: ${signal} again while stopping: exiting now, without waiting for the stop to finish\n`);
      process.exit(EXIT_STATUS[signal]);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

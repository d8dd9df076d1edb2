import type { Logger } from '@herald/core/ports';
import { logLevel, type logCreator } from 'kafkajs';

/**
 * Routes kafkajs's log lines to Herald's injected Logger, structured. kafkajs
 * logs as errors what it recovers from by itself (a rebalance, a dropped
 * connection, a retried request), so those arrive as warnings; failures that
 * matter surface as HeraldErrors from the bus's calls. Its INFO lines (joins,
 * starts, stops) arrive as debug. `onProblem` sees each warning or error
 * message (connect uses the last one to say why it gave up).
 */
export function kafkaLogCreator(logger: Logger, onProblem: (message: string) => void = () => undefined): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      const {
        message,
        timestamp: _timestamp,
        logger: _logger,
        ...fields
      } = log as { message: string; timestamp: string; logger?: string } & Record<string, unknown>;
      const line = `kafkajs ${namespace}: ${message}`;
      if (level === logLevel.ERROR || level === logLevel.WARN) {
        onProblem(message);
        logger.warn(line, fields);
      } else logger.debug(line, fields);
    };
}

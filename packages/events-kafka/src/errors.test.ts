import { ErrorCodes } from '@herald/core';
import {
  KafkaJSConnectionError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
} from 'kafkajs';
import { isRetriable, toHeraldError } from './errors';

describe('kafkajs errors as HeraldErrors', () => {
  it("takes retriable from kafkajs's own flag", () => {
    const dropped = toHeraldError(
      new KafkaJSConnectionError('Connection error: read ECONNRESET', { broker: 'b:1' }),
      'publish to t',
    );
    expect(dropped).toMatchObject({
      code: ErrorCodes.UNAVAILABLE,
      retriable: true,
      details: { kafkajs: 'KafkaJSConnectionError' },
    });
    expect(dropped.message).toBe('kafka: publish to t: Connection error: read ECONNRESET');

    const fatal = toHeraldError(new KafkaJSNonRetriableError('unsupported'), 'x');
    expect(fatal).toMatchObject({ code: ErrorCodes.INTERNAL, retriable: false });

    const protocol = new KafkaJSProtocolError({
      message: 'not leader',
      type: 'NOT_LEADER_FOR_PARTITION',
      code: 6,
      retriable: true,
    } as unknown as string);
    expect(toHeraldError(protocol, 'x')).toMatchObject({
      code: ErrorCodes.UNAVAILABLE,
      retriable: true,
      details: { type: 'NOT_LEADER_FOR_PARTITION' },
    });
  });

  it('judges kafkajs wrappers (spent retries, NonRetriable around a connection error) by the original error, as kafkajs does', () => {
    // What a producer's send throws once kafkajs's retries are spent on a refused connection (seen against the mock).
    const refused = new KafkaJSConnectionError('Connection error: connect ECONNREFUSED 127.0.0.1:9092');
    const outlasted = Object.assign(new KafkaJSNonRetriableError(refused), { cause: refused });
    expect(isRetriable(outlasted)).toBe(true);
    expect(toHeraldError(outlasted, 'publish to t')).toMatchObject({
      code: ErrorCodes.UNAVAILABLE,
      retriable: true,
      details: { kafkajs: 'KafkaJSConnectionError' },
    });

    const transient = new KafkaJSNumberOfRetriesExceeded(
      new KafkaJSConnectionError('Connection error: connect ECONNREFUSED'),
      { retryCount: 5, retryTime: 100 },
    );
    expect(isRetriable(transient)).toBe(true);
    expect(toHeraldError(transient, 'x')).toMatchObject({
      code: ErrorCodes.UNAVAILABLE,
      retriable: true,
      details: { kafkajs: 'KafkaJSConnectionError' },
    });
    const permanent = new KafkaJSNumberOfRetriesExceeded(new KafkaJSNonRetriableError('bad'), {
      retryCount: 5,
      retryTime: 100,
    });
    expect(isRetriable(permanent)).toBe(false);
  });

  it('passes a plain Error as INTERNAL, not retriable', () => {
    expect(toHeraldError(new Error('boom'), 'x')).toMatchObject({ code: ErrorCodes.INTERNAL, retriable: false });
    expect(isRetriable(undefined)).toBe(false);
  });
});

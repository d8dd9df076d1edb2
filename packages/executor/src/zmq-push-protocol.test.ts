import { MAX_ANSWER_BYTES, MAX_RETRY_AFTER_MS } from './webhook-answer';
import { decodeZmqAck, encodeZmqRequest, requestIdFrame } from './zmq-push-protocol';

const uins = Uint32Array.of(17, 42, 4096);
const ack = (status: string, detail = '', id = 7) => [
  Buffer.from('1'),
  requestIdFrame(id),
  Buffer.from(status),
  Buffer.from(detail),
];

describe('the ZeroMQ push gateway protocol', () => {
  it('lays a request out as docs/delivery.md shows it', () => {
    const frames = encodeZmqRequest(7, { taskId: 42, uins, content: { body: 'Hello' }, atLogin: false });
    expect(frames.map((f) => f.toString('hex'))).toEqual([
      '31',
      '07000000',
      Buffer.from('42:P:17:4096:3').toString('hex'),
      Buffer.from('{"taskId":42,"atLogin":false,"displayAt":null,"content":{"body":"Hello"}}').toString('hex'),
      '110000002a00000000100000',
    ]);
  });

  it('reads each status', () => {
    expect(decodeZmqAck(ack('accepted'), uins)).toEqual({ status: 'accepted', rejected: [] });
    expect(
      decodeZmqAck(ack('accepted', JSON.stringify({ rejected: [{ uin: 42, reason: 'Unregistered' }] })), uins),
    ).toEqual({ status: 'accepted', rejected: [{ uin: 42, reason: 'unregistered' }] });
    expect(decodeZmqAck(ack('throttled', '1500'), uins)).toEqual({ status: 'throttled', retryAfterMs: 1500 });
    expect(decodeZmqAck(ack('throttled'), uins)).toEqual({ status: 'throttled', retryAfterMs: undefined });
    expect(decodeZmqAck(ack('throttled', '9999999999'), uins)).toEqual({
      status: 'throttled',
      retryAfterMs: MAX_RETRY_AFTER_MS,
    });
    expect(decodeZmqAck(ack('failed', 'apns down'), uins)).toEqual({ status: 'failed', reason: 'apns down' });
    expect(decodeZmqAck(ack('refused'), uins)).toEqual({ status: 'refused', reason: 'no reason given' });
  });

  it.each([
    ['too few frames', ack('accepted').slice(0, 3), '3 frames, not 4'],
    ['another version', [Buffer.from('2'), ...ack('accepted').slice(1)], 'version "2"'],
    ['an unknown status', ack('ok'), 'status "ok"'],
    ['a retry-after that is not whole ms', ack('throttled', '1.5'), 'not whole ms'],
    ['rejections that are not JSON', ack('accepted', 'uin 42'), 'not JSON'],
    ['an answer over the size bound', ack('failed', 'x'.repeat(MAX_ANSWER_BYTES)), 'above'],
  ])('takes %s as malformed', (_what, frames, problem) => {
    const decoded = decodeZmqAck(frames, uins);
    expect(decoded).toEqual({ malformed: expect.stringContaining(problem) });
  });
});

import { redactSecrets } from './redact';

describe('redactSecrets', () => {
  it.each([
    [
      'config mysql.url: must be a mysql:// URL (got "mysqlx://herald:S3cretPW@db.internal:3306")',
      'config mysql.url: must be a mysql:// URL (got "mysqlx://herald:***@db.internal:3306")',
    ],
    ['https://u:p%40ss@push.example/in?x=1&token=abc&y=2', 'https://u:***@push.example/in?x=1&token=***&y=2'],
    ['token hrd_ab12_secretsecret and hmt_abcDEF-123', 'token hrd_ab12_*** and hmt_***'],
    ['Authorization: Bearer abc.def-123', 'Authorization: Bearer ***'],
    ['Authorization: Basic dXNlcjpwYXNzd29yZA==', 'Authorization: Basic ***'],
    ['bearer token Bearer abcdefghIJKLmnop', 'bearer token Bearer ***'],
    ['{"publicKey":"pub","secretKey":"Z85sec"}', '{"publicKey":"pub","secretKey":"***"}'],
    ['"{\\"password\\": \\"pw\\"}"', '"{\\"password\\": \\"***\\"}"'],
  ])('redacts %s', (text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
  });

  it('leaves text without credentials as it is', () => {
    for (const text of [
      'mysql://root@127.0.0.1:3306',
      'tcp://10.0.0.1:7101',
      'management.endpoints.scheduler-1: must be "host:port" (got "http://127.0.0.1:9")',
      'task 42 completed: 1000 delivered',
      'user@example.com',
      'Basic settings apply',
    ]) {
      expect(redactSecrets(text)).toBe(text);
    }
  });
});

import { execFile } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { noopLogger } from '@herald/core/ports';
import { hashManagementToken, startManagementServer, type ManagementServer } from '@herald/production';
import { makeTempDir, type TempDir } from '@herald/testing';
import { createCredential, managementToken } from '../src/commands/admin';

const MAIN = join(__dirname, '..', 'dist', 'main.js');
const run = promisify(execFile);

/** The management credential on the operator's side: herald admin credential, and where herald admin reads the token. */
describe('herald admin and the management credential', () => {
  let dir: TempDir;
  beforeAll(async () => (dir = await makeTempDir('herald-credential-')));
  afterAll(async () => dir.remove());

  it('writes a new token to a 0600 file, returns its hash, and never overwrites a file', async () => {
    const file = join(dir.path, 'management.token');
    const hash = await createCredential(file);
    const token = (await readFile(file, 'utf8')).trim();
    expect(token).toMatch(/^hmt_[A-Za-z0-9_-]{43}$/);
    expect(hash).toBe(hashManagementToken(token));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await expect(createCredential(file)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(/--out: cannot create .*never overwritten/),
    });
  });

  it('reads the token from --token-file, else HERALD_MANAGEMENT_TOKEN_FILE, else HERALD_MANAGEMENT_TOKEN, and names them when there is none', async () => {
    const file = join(dir.path, 'from-file');
    await writeFile(file, 'hmt_from_file\n');
    expect(await managementToken(file, { HERALD_MANAGEMENT_TOKEN: 'hmt_env' })).toBe('hmt_from_file');
    expect(
      await managementToken(undefined, { HERALD_MANAGEMENT_TOKEN_FILE: file, HERALD_MANAGEMENT_TOKEN: 'hmt_env' }),
    ).toBe('hmt_from_file');
    expect(await managementToken(undefined, { HERALD_MANAGEMENT_TOKEN: 'hmt_env' })).toBe('hmt_env');
    await expect(managementToken(undefined, {})).rejects.toThrow(/HERALD_MANAGEMENT_TOKEN.*--token-file/);
  });

  describe('against a management endpoint', () => {
    let server: ManagementServer;
    const token = 'hmt_cli-test-token';
    beforeAll(async () => {
      const managed = {
        id: 'scheduler-1',
        tier: 'scheduler',
        status: () => ({}),
        drain: async () => undefined,
        metrics: async () => ({ contentType: 'text/plain', body: '' }),
      };
      server = await startManagementServer(managed, {
        address: '127.0.0.1:0',
        faults: false,
        tokenHash: hashManagementToken(token),
        logger: noopLogger,
      });
    });
    afterAll(async () => server.close());

    const admin = (env: NodeJS.ProcessEnv) =>
      run(process.execPath, [MAIN, 'admin', 'status', '--address', server.address], {
        env: { PATH: process.env.PATH, ...env },
      });

    it('shows the status with the token from the environment', async () => {
      const { stdout } = await admin({ HERALD_MANAGEMENT_TOKEN: token });
      expect(JSON.parse(stdout)).toMatchObject({ id: 'scheduler-1', state: 'running' });
    });

    it('fails without a token, or with a wrong one, without printing it', async () => {
      await expect(admin({})).rejects.toMatchObject({
        stderr: expect.stringMatching(/^herald: CONFIG_INVALID: config HERALD_MANAGEMENT_TOKEN: no management token/),
      });
      const wrong = await admin({ HERALD_MANAGEMENT_TOKEN: 'hmt_wrong-token' }).then(
        () => '',
        (error: { stderr: string }) => error.stderr,
      );
      expect(wrong).toMatch(/401/);
      expect(wrong).not.toContain('wrong-token');
    });
  });
});

/**
 * Fuzz tests (fast-check) of the config file loader: loadOptions reads the
 * file given to --config, and compileConfig checks what it holds, so for any
 * file content the two together give a config or throw ConfigError; a JSON
 * file reads back as the value written.
 *
 * Runs per property: HERALD_FUZZ_RUNS (default below; each run writes a file).
 * A failure prints the property's `seed` and `path`; replay exactly that case
 * by passing them to the failing assert: fc.assert(property, { seed: 1234, path: '5:2:0' }).
 * docs/fuzzing.md.
 */
import * as fc from 'fast-check';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compileConfig } from '@herald/core/config';
import { ConfigError } from '@herald/core';
import { makeTempDir, type TempDir } from '@herald/testing';
import { loadOptions } from './load-config';

const RUNS = Number(process.env.HERALD_FUZZ_RUNS) || 100;
/** A run is one small file read; a run still pending after this is a hang. */
const settings = { numRuns: RUNS, timeout: 5000 };

const fileContent = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
  fc.string({ maxLength: 100 }),
  fc.uint8Array({ maxLength: 100 }).map((bytes) => Buffer.from(bytes)),
  // A valid embedded config cut short: JSON that stops anywhere.
  fc.nat().map((at) => {
    const text = JSON.stringify({ profile: 'embedded', http: { port: 8080 }, executor: { ids: ['e1'] } });
    return text.slice(0, at % text.length);
  }),
);

describe('loadOptions, fuzzed', () => {
  let dir: TempDir;
  beforeAll(async () => {
    dir = await makeTempDir('herald-config-fuzz-');
  });
  afterAll(async () => {
    await dir.remove();
  });

  it('loading and compiling any file gives a config or a ConfigError', async () => {
    await fc.assert(
      fc.asyncProperty(fileContent, async (content) => {
        const path = join(dir.path, 'herald.json');
        await writeFile(path, content);
        try {
          compileConfig(await loadOptions(path));
        } catch (error) {
          if (!(error instanceof ConfigError)) throw error;
        }
      }),
      settings,
    );
  });

  it('reads back any JSON value written to the file', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 3 }), async (value) => {
        const path = join(dir.path, 'round-trip.json');
        const text = JSON.stringify(value);
        await writeFile(path, text);
        expect(await loadOptions(path)).toEqual(JSON.parse(text));
      }),
      settings,
    );
  });
});

import { importFromSource, ListRepository, targetingSource } from '@herald/audience';
import {
  attributeIndexConformance,
  audienceSourceConformance,
  followerStoreConformance,
  makeTempDir,
  readAudience,
  rejectsWithCode,
  userAttributeLookupConformance,
} from '@herald/testing';
import { migrate } from './migrate';
import { MySqlAttributeIndex } from './mysql-attribute-index';
import { MySqlFollowerStore } from './mysql-follower-store';
import { MySqlTableSources } from './mysql-table-source';
import {
  dropDatabase,
  rawConnection,
  TEST_MYSQL_URL as URL_,
  uniqueDatabase,
  useSharedDatabases,
} from './test-databases';

/** For the suites that only write rows; the table source's creates a table, so it takes a fresh database. */
const databases = useSharedDatabases();

async function migrated(): Promise<string> {
  const database = uniqueDatabase();
  try {
    await migrate(URL_, { database });
    return database;
  } catch (error) {
    await dropDatabase(database);
    throw error;
  }
}

followerStoreConformance('MySqlFollowerStore', async () => {
  const { name: database, release } = await databases.acquire();
  return {
    store: await MySqlFollowerStore.open({ url: URL_, database, poolSize: 4 }),
    cleanup: release,
  };
});

attributeIndexConformance('MySqlAttributeIndex', async () => {
  const { name: database, release } = await databases.acquire();
  return {
    store: await MySqlAttributeIndex.open({ url: URL_, database, poolSize: 4 }),
    cleanup: release,
  };
});

userAttributeLookupConformance('MySqlAttributeIndex', async () => {
  const { name: database, release } = await databases.acquire();
  return {
    store: await MySqlAttributeIndex.open({ url: URL_, database, poolSize: 4 }),
    cleanup: release,
  };
});

audienceSourceConformance('targeting on MySqlAttributeIndex', async () => {
  const { name: database, release } = await databases.acquire();
  const index = await MySqlAttributeIndex.open({ url: URL_, database, poolSize: 4 });
  return {
    seed: async (uins, { batchSize }) => {
      const users = [
        ...uins.map((uin) => ({ uin, tags: ['t'] })),
        { uin: 123_456_789, tags: ['t', 'churned'] },
        { uin: 77, region: 'x' },
      ];
      await index.putUsers(users.filter((u, i) => users.findIndex((v) => v.uin === u.uin) === i));
      return targetingSource(index, 'tag:t AND NOT tag:churned', { batchSize, windowChunks: 2 });
    },
    breakBackend: () => index.close(),
    close: async () => {
      await index.close();
      await release();
    },
  };
});

/** A scratch table of (id, uin BIGINT, region) rows; the table source reads `uin` where region = 'in'. */
audienceSourceConformance('table on MySqlTableSources', async () => {
  const database = await migrated();
  const sources = await MySqlTableSources.open({ url: URL_, database, poolSize: 4 });
  const conn = await rawConnection(database);
  await conn.query(
    'CREATE TABLE crm_users (id INT AUTO_INCREMENT PRIMARY KEY, uin BIGINT NULL, region VARCHAR(8) NOT NULL, KEY (uin))',
  );
  return {
    seed: async (uins, { batchSize }) => {
      const rows = [...uins.map((uin) => [uin, 'in']), [uins[0] ?? 5, 'in'], [424_242, 'out']];
      for (let at = 0; at < rows.length; at += 500)
        await conn.query('INSERT INTO crm_users (uin, region) VALUES ?', [rows.slice(at, at + 500)]);
      if (uins.length === 0) await conn.query("DELETE FROM crm_users WHERE region = 'in'");
      return sources.source(
        { table: 'crm_users', column: 'uin', where: [{ column: 'region', op: '=', value: 'in' }] },
        { batchSize },
      );
    },
    breakBackend: async () => {
      await conn.query('DROP TABLE crm_users');
    },
    close: async () => {
      await conn.end();
      await sources.close();
      await dropDatabase(database);
    },
  };
});

describe('MySqlTableSources', () => {
  let database: string;
  let sources: MySqlTableSources;
  beforeAll(async () => {
    database = await migrated();
    sources = await MySqlTableSources.open({ url: URL_, database, poolSize: 2 });
    const conn = await rawConnection(database);
    await conn.query(
      'CREATE TABLE people (id INT AUTO_INCREMENT PRIMARY KEY, uin BIGINT NULL, name VARCHAR(20), score INT, plan VARCHAR(8), KEY (uin))',
    );
    await conn.query('INSERT INTO people (uin, name, score, plan) VALUES ?', [
      [
        [1, 'a', 10, 'gold'],
        [2, 'b', 20, 'silver'],
        [2, 'b2', 30, 'gold'],
        [null, 'n', 40, 'gold'],
        [-4, 'neg', 50, 'gold'],
        [2 ** 40, 'big', 60, 'gold'],
        [7, "x' OR '1'='1", 70, 'gold'],
      ],
    ]);
    await conn.end();
  });
  afterAll(async () => {
    await sources.close();
    await dropDatabase(database);
  });

  it('folds duplicates, filters by typed conditions and counts bad rows by reason', async () => {
    const { uins, bad } = await readAudience(
      sources.source({
        table: 'people',
        column: 'uin',
        where: [
          { column: 'plan', op: 'in', value: ['gold'] },
          { column: 'score', op: '>=', value: 30 },
        ],
      }),
    );
    expect(uins).toEqual([2, 7]);
    expect(bad).toEqual({ null: 1, negative: 1, out_of_range: 1 });
  });

  it('binds condition values as placeholders: a quote in a value is just text', async () => {
    expect(
      (
        await readAudience(
          sources.source({
            table: 'people',
            column: 'uin',
            where: [{ column: 'name', op: '=', value: "x' OR '1'='1" }],
          }),
        )
      ).uins,
    ).toEqual([7]);
    expect(
      (
        await readAudience(
          sources.source({
            table: 'people',
            column: 'uin',
            where: [{ column: 'name', op: '=', value: "' OR 1=1 -- " }],
          }),
        )
      ).uins,
    ).toEqual([]);
  });

  it('reads a table of another database named database.table', async () => {
    expect(
      (
        await readAudience(
          sources.source({
            table: `${database}.people`,
            column: 'uin',
            where: [{ column: 'name', op: '=', value: 'a' }],
          }),
        )
      ).uins,
    ).toEqual([1]);
  });

  it('refuses unsafe identifiers before any SQL exists', () => {
    expect(() => sources.source({ table: 'people; DROP TABLE people', column: 'uin' })).toThrow(
      /table must be a plain identifier/,
    );
    expect(() =>
      sources.source({ table: 'people', column: 'uin', where: [{ column: 'name` = 1 OR `x', op: '=', value: 1 }] }),
    ).toThrow(/plain identifier/);
  });

  it('a missing table, column or condition column, or a column that is not an integer, is a ValidationError naming the field', async () => {
    const fieldOf = async (spec: Parameters<MySqlTableSources['source']>[0]) =>
      (await rejectsWithCode(readAudience(sources.source(spec)), 'VALIDATION_FAILED')).details.field;
    expect(await fieldOf({ table: 'nope', column: 'uin' })).toBe('table');
    expect(await fieldOf({ table: 'people', column: 'nope' })).toBe('column');
    expect(await fieldOf({ table: 'people', column: 'name' })).toBe('column');
    expect(await fieldOf({ table: 'people', column: 'uin', where: [{ column: 'nope', op: 'is null' }] })).toBe(
      'where[0].column',
    );
  });

  it('a table dropped half way leaves no list, with a typed error', async () => {
    const conn = await rawConnection(database);
    await conn.query('CREATE TABLE doomed (uin INT PRIMARY KEY)');
    await conn.query('INSERT INTO doomed (uin) VALUES ?', [Array.from({ length: 100 }, (_, i) => [i * 3])]);
    const dir = await makeTempDir('herald-table-import-');
    try {
      const lists = new ListRepository(dir.path);
      const inner = sources.source({ table: 'doomed', column: 'uin' }, { batchSize: 10 });
      // The table goes away right after the first page has been handed over.
      const source = {
        ...inner,
        read: (options: Parameters<typeof inner.read>[0]) =>
          (async function* () {
            let first = true;
            for await (const batch of inner.read(options)) {
              yield batch;
              if (first) await conn.query('DROP TABLE doomed');
              first = false;
            }
          })(),
      };
      const error = await importFromSource(lists, source, { accountId: 'acme', uinLimit: 2 ** 32 }).catch(
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: 'AUDIENCE_SOURCE_FAILED' });
      expect((error as { details: { read: number } }).details.read).toBe(10);
      const { readdir } = await import('node:fs/promises');
      expect(await readdir(dir.path)).toEqual([]);
    } finally {
      await conn.end();
      await dir.remove();
    }
  });
});

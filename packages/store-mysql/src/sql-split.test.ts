import { loadMigrations } from './migrate';
import { splitSql } from './sql-split';

describe('splitSql', () => {
  it('splits on ; and drops empty statements and line comments', () => {
    expect(splitSql('-- header\n# another\nCREATE TABLE a (x INT);\n\n  SELECT 1 ;;\nSELECT 2')).toEqual([
      'CREATE TABLE a (x INT)',
      'SELECT 1',
      'SELECT 2',
    ]);
    expect(splitSql('-- only a comment\n')).toEqual([]);
  });

  it('ignores delimiters inside quotes, identifiers and block comments', () => {
    expect(
      splitSql(
        `INSERT INTO t VALUES ('a;b', "c;d", 'it''s; ok', 'back\\'slash;');\nSELECT \`odd;name\` /* not; here */ FROM t;`,
      ),
    ).toEqual([
      `INSERT INTO t VALUES ('a;b', "c;d", 'it''s; ok', 'back\\'slash;')`,
      'SELECT `odd;name` /* not; here */ FROM t',
    ]);
  });

  it('keeps -- without a following space (an expression, not a comment)', () => {
    expect(splitSql('SELECT 1--1;')).toEqual(['SELECT 1--1']);
  });

  it('honours DELIMITER lines, as the mysql client does, so triggers keep their inner semicolons', () => {
    const text = [
      'CREATE TABLE a (x INT);',
      'DELIMITER $$',
      'CREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW',
      'BEGIN',
      '  UPDATE b SET n = n + 1;',
      '  INSERT INTO c VALUES (NEW.x);',
      'END$$',
      'DELIMITER ;',
      'SELECT 1;',
    ].join('\n');
    expect(splitSql(text)).toEqual([
      'CREATE TABLE a (x INT)',
      'CREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW\nBEGIN\n  UPDATE b SET n = n + 1;\n  INSERT INTO c VALUES (NEW.x);\nEND',
      'SELECT 1',
    ]);
  });

  it('splits the package migration that defines triggers into its statements', async () => {
    const outbox = (await loadMigrations()).find((m) => m.name === '002_outbox.sql')!;
    const statements = splitSql(outbox.sql);
    expect(statements.map((s) => s.split(/\s+/).slice(0, 3).join(' '))).toEqual([
      'CREATE TABLE IF',
      'CREATE TABLE IF',
      'INSERT IGNORE INTO',
      'CREATE TRIGGER IF',
      'CREATE TRIGGER IF',
    ]);
    expect(statements[3]).toMatch(/END$/);
  });
});

import { ValidationError } from '../errors';
import { checkTableSourceSpec } from './table-source-spec';

describe('table source description', () => {
  it('accepts a table, a database.table, a column and typed conditions', () => {
    const spec = {
      table: 'crm.users',
      column: 'uin',
      where: [
        { column: 'country', op: '=', value: 'cn' },
        { column: 'score', op: '>=', value: 10 },
        { column: 'plan', op: 'in', value: ['gold', 'silver'] },
        { column: 'deleted_at', op: 'is null' },
      ],
    };
    expect(checkTableSourceSpec(spec)).toEqual(spec);
  });

  it.each([
    [{ table: 'users; DROP TABLE x', column: 'uin' }, 'table'],
    [{ table: 'a.b.c', column: 'uin' }, 'table'],
    [{ table: '`users`', column: 'uin' }, 'table'],
    [{ table: '123', column: 'uin' }, 'table'],
    [{ table: 'users', column: 'uin`' }, 'column'],
    [{ table: 'users', column: 'x'.repeat(65) }, 'column'],
    [{ table: 'users', column: 'uin', where: [{ column: 'a', op: 'like', value: '%' }] }, 'where[0].op'],
    [{ table: 'users', column: 'uin', where: [{ column: 'a', op: '=', value: { $gt: 1 } }] }, 'where[0].value'],
    [{ table: 'users', column: 'uin', where: [{ column: 'a', op: 'in', value: [] }] }, 'where[0].value'],
    [{ table: 'users', column: 'uin', where: [{ column: 'a', op: 'is null', value: 1 }] }, 'where[0].value'],
    [{ table: 'users', column: 'uin', where: [{ column: 'a) OR (1', op: '=', value: 1 }] }, 'where[0].column'],
    [{ table: 'users', column: 'uin', where: [{ column: 'a', op: '=', value: 1, raw: 'x' }] }, 'where[0]'],
    [{ table: 'users', column: 'uin', sql: 'SELECT 1' }, 'sql'],
    [
      { table: 'users', column: 'uin', where: Array.from({ length: 17 }, () => ({ column: 'a', op: 'is null' })) },
      'where',
    ],
  ])('refuses %j naming %s', (spec, field) => {
    try {
      checkTableSourceSpec(spec);
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).details.field).toBe(field);
    }
  });
});

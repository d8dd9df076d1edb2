/**
 * The `table` audience source's description: which table, which uin column,
 * which rows (docs/audience-sources.md, "MySQL table"). Checked here, before
 * any SQL exists: identifiers cannot be placeholders, so only names that need
 * no escaping pass (and are still quoted); every value is a placeholder, never
 * text in the statement. There is no free-form WHERE: conditions are
 * (column, operator, value) triples.
 */
import { ValidationError } from '../errors';

export const TABLE_CONDITION_OPS = ['=', '!=', '<', '<=', '>', '>=', 'in', 'is null', 'is not null'] as const;
export type TableConditionOp = (typeof TABLE_CONDITION_OPS)[number];

/** A value a condition compares with: bound as a placeholder. */
export type TableValue = string | number | boolean;

export interface TableCondition {
  column: string;
  op: TableConditionOp;
  /** One value; an array of 1..1000 for `in`; absent for `is null` / `is not null`. */
  value?: TableValue | TableValue[];
}

export interface TableSourceSpec {
  /** `table` or `database.table`. */
  table: string;
  /** An integer column holding the uins (keyset pagination walks it: index it). */
  column: string;
  /** Rows must match all of these (AND). At most 16. */
  where?: TableCondition[];
}

/** A MySQL identifier Herald accepts: ASCII letters, digits, `_` and `$`, not all digits, 1..64. */
const IDENTIFIER = /^(?![0-9]+$)[A-Za-z0-9_$]{1,64}$/;
export const MAX_TABLE_CONDITIONS = 16;
export const MAX_IN_VALUES = 1000;
const MAX_STRING_VALUE_CHARS = 1024;

export function checkIdentifier(field: string, value: unknown): string {
  if (typeof value !== 'string' || !IDENTIFIER.test(value)) {
    throw new ValidationError(
      `${field} must be a plain identifier: 1..64 ASCII letters, digits, _ or $ (not only digits)`,
      { field },
    );
  }
  return value;
}

function checkValue(field: string, value: unknown): TableValue {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new ValidationError(`${field} must be a finite number`, { field });
    return value;
  }
  if (typeof value === 'string') {
    if (value.length > MAX_STRING_VALUE_CHARS)
      throw new ValidationError(`${field} is longer than ${MAX_STRING_VALUE_CHARS} characters`, { field });
    return value;
  }
  throw new ValidationError(`${field} must be a string, a number or a boolean`, { field });
}

function checkCondition(index: number, condition: unknown): TableCondition {
  const at = `where[${index}]`;
  if (condition === null || typeof condition !== 'object' || Array.isArray(condition))
    throw new ValidationError(`${at} must be { column, op, value }`, { field: at });
  const { column, op, value, ...rest } = condition as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) throw new ValidationError(`${at} has unknown fields: ${extra.join(', ')}`, { field: at });
  const checkedColumn = checkIdentifier(`${at}.column`, column);
  if (typeof op !== 'string' || !(TABLE_CONDITION_OPS as readonly string[]).includes(op)) {
    throw new ValidationError(`${at}.op must be one of ${TABLE_CONDITION_OPS.join(', ')}`, { field: `${at}.op` });
  }
  const checkedOp = op as TableConditionOp;
  if (checkedOp === 'is null' || checkedOp === 'is not null') {
    if (value !== undefined)
      throw new ValidationError(`${at}.value must be absent for '${checkedOp}'`, { field: `${at}.value` });
    return { column: checkedColumn, op: checkedOp };
  }
  if (checkedOp === 'in') {
    if (!Array.isArray(value) || value.length === 0 || value.length > MAX_IN_VALUES) {
      throw new ValidationError(`${at}.value must be a list of 1..${MAX_IN_VALUES} values for 'in'`, {
        field: `${at}.value`,
      });
    }
    return { column: checkedColumn, op: checkedOp, value: value.map((v, i) => checkValue(`${at}.value[${i}]`, v)) };
  }
  return { column: checkedColumn, op: checkedOp, value: checkValue(`${at}.value`, value) };
}

/** Checks a table source's description; a ValidationError names the field at fault. */
export function checkTableSourceSpec(spec: unknown): TableSourceSpec {
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec))
    throw new ValidationError('a table source must be { table, column, where? }');
  const { table, column, where, ...rest } = spec as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0)
    throw new ValidationError(`the table source has unknown fields: ${extra.join(', ')}`, { field: extra[0] });
  if (typeof table !== 'string')
    throw new ValidationError('table must be a string: table or database.table', { field: 'table' });
  const parts = table.split('.');
  if (parts.length > 2) throw new ValidationError('table must be table or database.table', { field: 'table' });
  for (const part of parts) checkIdentifier('table', part);
  const checked: TableSourceSpec = { table, column: checkIdentifier('column', column) };
  if (where !== undefined) {
    if (!Array.isArray(where) || where.length > MAX_TABLE_CONDITIONS)
      throw new ValidationError(`where must be a list of at most ${MAX_TABLE_CONDITIONS} conditions`, {
        field: 'where',
      });
    checked.where = where.map((condition, i) => checkCondition(i, condition));
  }
  return checked;
}

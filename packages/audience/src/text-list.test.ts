import { ValidationError } from '@herald/core';
import { TextListParser, type TextListOptions, type TextListReport } from './text-list';

const U32 = 2 ** 32;

/** Parses `text` fed in the given chunk sizes (cycled); returns the uins and the report. */
function parse(
  text: string | Buffer,
  options: Partial<TextListOptions> = {},
  sizes: number[] = [1 << 16],
): { uins: number[]; report: TextListReport } {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const parser = new TextListParser({ uinLimit: U32, ...options });
  const uins: number[] = [];
  for (let at = 0, k = 0; at < bytes.length; k++) {
    const size = sizes[k % sizes.length]!;
    uins.push(...parser.push(bytes.subarray(at, at + size)));
    at += size;
  }
  uins.push(...parser.end());
  return { uins, report: parser.report };
}

describe('TextListParser, one uin per line', () => {
  it('reads LF and CRLF lines, leading zeros and surrounding spaces, a last line without newline', () => {
    const { uins, report } = parse('1\n0002\r\n  3 \t\r\n4294967295\n5');
    expect(uins).toEqual([1, 2, 3, 4294967295, 5]);
    expect(report).toMatchObject({
      format: 'lines',
      lines: 5,
      valid: 5,
      blank: 0,
      header: null,
      column: 1,
      firstBad: [],
    });
    expect(report.bad.total).toBe(0);
  });

  it('skips and counts blank lines, CRLF ones and whitespace-only ones included', () => {
    const { uins, report } = parse('\n7\n\r\n   \n\t\r\n8\n\n');
    expect(uins).toEqual([7, 8]);
    expect(report).toMatchObject({ lines: 7, valid: 2, blank: 5 });
  });

  it('keeps duplicates: the filter chain removes them', () => {
    expect(parse('5\n5\n5\n').uins).toEqual([5, 5, 5]);
  });

  it('counts each kind of bad line by reason, with its line number', () => {
    const text = [
      '12',
      'abc',
      '-5',
      '-0',
      '12.5',
      '12.0',
      '.5',
      '4294967296',
      '99999999999999999999999',
      '1e9',
      '+3',
      '-',
      '.',
      '1 2',
      '0x10',
      '13',
      '',
    ].join('\n');
    const { uins, report } = parse(text, { badLineSamples: 100 });
    expect(uins).toEqual([12, 13]);
    expect(report.bad).toEqual({
      not_a_number: 7,
      negative: 2,
      fraction: 3,
      out_of_range: 2,
      too_long: 0,
      missing_column: 0,
      total: 14,
    });
    expect(report.firstBad).toEqual([
      { line: 2, reason: 'not_a_number' },
      { line: 3, reason: 'negative' },
      { line: 4, reason: 'negative' },
      { line: 5, reason: 'fraction' },
      { line: 6, reason: 'fraction' },
      { line: 7, reason: 'fraction' },
      { line: 8, reason: 'out_of_range' },
      { line: 9, reason: 'out_of_range' },
      { line: 10, reason: 'not_a_number' },
      { line: 11, reason: 'not_a_number' },
      { line: 12, reason: 'not_a_number' },
      { line: 13, reason: 'not_a_number' },
      { line: 14, reason: 'not_a_number' },
      { line: 15, reason: 'not_a_number' },
    ]);
  });

  it('takes the uin space from uinLimit: the limit itself is out of range', () => {
    const { uins, report } = parse('0\n65535\n65536\n70000\n', { uinLimit: 2 ** 16 });
    expect(uins).toEqual([0, 65535]);
    expect(report.bad.out_of_range).toBe(2);
  });

  it('counts a line over maxLineBytes as too_long without holding it, in any chunking', () => {
    const long = '1'.repeat(100);
    const text = `1\n${long}\n2\n${'x'.repeat(5000)}\n3\n${long}`;
    for (const sizes of [[1 << 16], [1], [7], [33]]) {
      const { uins, report } = parse(text, { maxLineBytes: 50 }, sizes);
      expect(uins).toEqual([1, 2, 3]);
      expect(report.bad).toMatchObject({ too_long: 3, total: 3 });
      expect(report.firstBad).toEqual([
        { line: 2, reason: 'too_long' },
        { line: 4, reason: 'too_long' },
        { line: 6, reason: 'too_long' },
      ]);
      expect(report.lines).toBe(6);
    }
    // Exactly maxLineBytes is still a line.
    expect(parse(`${'0'.repeat(49)}7\n`, { maxLineBytes: 50 }).uins).toEqual([7]);
  });

  it('names only the first badLineSamples bad lines but counts all', () => {
    const { report } = parse('x\n'.repeat(25), { badLineSamples: 3, header: 'absent' });
    expect(report.bad.not_a_number).toBe(25);
    expect(report.firstBad.map((bad) => bad.line)).toEqual([1, 2, 3]);
  });

  it('detects a header line that is not a number, and declares one present or absent', () => {
    expect(parse('uin\n1\n2\n')).toMatchObject({
      uins: [1, 2],
      report: { header: { line: 1, fields: ['uin'] }, valid: 2 },
    });
    expect(parse('\n\nuin\n1\n').report.header).toEqual({ line: 3, fields: ['uin'] });
    expect(parse('1\n2\n').report.header).toBeNull();
    // A negative first line is a bad line, not a header.
    expect(parse('-1\n2\n').report).toMatchObject({ header: null, bad: { negative: 1 } });
    // Declared: the first line goes whatever it holds.
    expect(parse('42\n1\n', { header: 'present' })).toMatchObject({
      uins: [1],
      report: { header: { line: 1, fields: ['42'] } },
    });
    expect(parse('uin\n1\n', { header: 'absent' })).toMatchObject({
      uins: [1],
      report: { header: null, bad: { not_a_number: 1 } },
    });
    // Only the first non-blank line can be a header.
    expect(parse('uin\nuin\n1\n').report.bad.not_a_number).toBe(1);
  });

  it('skips a UTF-8 byte-order mark at the start', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    for (const sizes of [[1 << 16], [1], [2]]) {
      expect(parse(Buffer.concat([bom, Buffer.from('9\n10\n')]), {}, sizes).uins).toEqual([9, 10]);
    }
  });

  it('refuses options it cannot honour', () => {
    const bad: Array<Partial<TextListOptions>> = [
      { uinLimit: 0 },
      { uinLimit: 2 ** 33 },
      { column: 2 },
      { column: 'uin' },
      { format: 'json' as 'csv' },
      { format: 'csv', delimiter: 'x' },
      { format: 'csv', column: 0 },
      { format: 'csv', column: 1.5 },
      { format: 'csv', column: 'uin', header: 'absent' },
      { format: 'csv', column: '  ' },
      { header: 'maybe' as 'auto' },
      { maxLineBytes: 0 },
      { maxLineBytes: 2 ** 21 },
      { badLineSamples: -1 },
    ];
    for (const options of bad) expect(() => new TextListParser({ uinLimit: U32, ...options })).toThrow(ValidationError);
  });
});

describe('TextListParser, CSV', () => {
  const csv = (text: string, options: Partial<TextListOptions> = {}, sizes?: number[]) =>
    parse(text, { format: 'csv', ...options }, sizes);

  it('reads a named column after a header, case-insensitively, quoted or not', () => {
    const text = 'name,"UIN",email\r\nann,1,a@x\r\n"bob, jr",2,b@x\r\n"c ""q""","3",c@x\r\n';
    const { uins, report } = csv(text, { column: 'uin' });
    expect(uins).toEqual([1, 2, 3]);
    expect(report).toMatchObject({
      format: 'csv',
      header: { line: 1, fields: ['name', 'UIN', 'email'] },
      column: 2,
      valid: 3,
      lines: 4,
    });
  });

  it('reads a numbered column (1-based), detecting a header or not', () => {
    expect(csv('a;b\n5;6\n7;8\n', { column: 2, delimiter: ';' })).toMatchObject({
      uins: [6, 8],
      report: { header: { fields: ['a', 'b'] } },
    });
    expect(csv('5\t6\n7\t8\n', { column: 2, delimiter: '\t' })).toMatchObject({
      uins: [6, 8],
      report: { header: null },
    });
    expect(csv('5|6\n', { column: 1, delimiter: '|' }).uins).toEqual([5]);
  });

  it('a named column missing from the header is a ValidationError', () => {
    expect(() => csv('name,email\n1,2\n', { column: 'uin' })).toThrow(ValidationError);
    expect(() => csv('1,2\n', { column: 'uin' })).toThrow(/not in the header/);
  });

  it('counts records with too few fields, or an empty uin field, as missing_column', () => {
    const { uins, report } = csv('uin,n\n1,a\n2\n,b\n"",c\n  ,d\n3,e\n', { column: 1, badLineSamples: 10 });
    expect(uins).toEqual([1, 2, 3]);
    expect(report.bad).toMatchObject({ missing_column: 3, total: 3 });
    const second = csv('1,2\n3\n4,\n5,6\n', { column: 2 });
    expect(second.uins).toEqual([2, 6]);
    expect(second.report.firstBad).toEqual([
      { line: 2, reason: 'missing_column' },
      { line: 3, reason: 'missing_column' },
    ]);
  });

  it('keeps a quoted newline inside its record, and numbers lines by where records start', () => {
    const text = 'uin,address\n1,"line one\nline two"\n2,plain\n"3","a\r\nb\r\nc"\n4,x\n';
    for (const sizes of [[1 << 16], [1], [5]]) {
      const { uins, report } = csv(text, { column: 'uin' }, sizes);
      expect(uins).toEqual([1, 2, 3, 4]);
      expect(report.lines).toBe(8);
    }
    const bad = csv('uin,a\n1,"x\ny"\nq,z\n', { column: 'uin' });
    expect(bad.report.firstBad).toEqual([{ line: 4, reason: 'not_a_number' }]);
  });

  it('reads malformed quoting as not_a_number', () => {
    const { uins, report } = csv('"1"x,a\n"2" ,b\n3"",c\n"4\n', { column: 1, header: 'absent' });
    expect(uins).toEqual([2]);
    // Line 4 opens a quote that never closes: the rest of the input is that record.
    expect(report.firstBad).toEqual([
      { line: 1, reason: 'not_a_number' },
      { line: 3, reason: 'not_a_number' },
      { line: 4, reason: 'not_a_number' },
    ]);
  });

  it('checks every reason in a CSV column too', () => {
    const { uins, report } = csv('x,-1\nx,1.5\nx,4294967296\nx,abc\nx,7\n', { column: 2, header: 'absent' });
    expect(uins).toEqual([7]);
    expect(report.bad).toEqual({
      not_a_number: 1,
      negative: 1,
      fraction: 1,
      out_of_range: 1,
      too_long: 0,
      missing_column: 0,
      total: 4,
    });
  });
});

describe('TextListParser across chunk boundaries', () => {
  const inputs: Array<[string, Partial<TextListOptions>]> = [
    [
      'uin\r\n1\r\n\r\n22\r\n-3\r\n4.5\r\n4294967296\r\nabc\r\n' + '9'.repeat(40) + '\r\n333\r\n4444',
      { maxLineBytes: 30 },
    ],
    [
      '\uFEFFname,uin\n"a,b",1\n"x\ny",22\nz\n q ,"333"\n,\n' + 'w'.repeat(40) + ',5\n6,"7"',
      { format: 'csv', column: 'uin', maxLineBytes: 30 },
    ],
  ];

  it.each(inputs)('gives the same result however the input is cut: %j', (text, options) => {
    const bytes = Buffer.from(text, 'utf8');
    const whole = parse(bytes, options);
    expect(whole.uins.length).toBeGreaterThan(2);
    expect(whole.report.bad.total).toBeGreaterThan(0);
    // Every single cut position, then every chunk size.
    for (let cut = 0; cut <= bytes.length; cut++) {
      const parser = new TextListParser({ uinLimit: U32, ...options });
      const uins = [...parser.push(bytes.subarray(0, cut)), ...parser.push(bytes.subarray(cut)), ...parser.end()];
      expect({ cut, uins, report: parser.report }).toEqual({ cut, uins: whole.uins, report: whole.report });
    }
    for (let size = 1; size <= 16; size++) {
      expect(parse(bytes, options, [size])).toEqual(whole);
    }
  });

  it('parses many records from one chunk and grows its output buffer', () => {
    const text = Array.from({ length: 10_000 }, (_, i) => String(i)).join('\n');
    const { uins, report } = parse(text);
    expect(uins).toHaveLength(10_000);
    expect(uins[9_999]).toBe(9_999);
    expect(report.valid).toBe(10_000);
  });

  it('refuses use after end', () => {
    const parser = new TextListParser({ uinLimit: U32 });
    parser.end();
    expect(() => parser.push(Buffer.from('1\n'))).toThrow(ValidationError);
    expect(() => parser.end()).toThrow(ValidationError);
  });
});

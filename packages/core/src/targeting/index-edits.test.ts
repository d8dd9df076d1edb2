import { applyChunkEdit, chunkEdits, lastPerUin } from './index-edits';
import { chunkHas, emptyChunk } from './bitset-chunk';

describe('attribute index edits', () => {
  it('moves a user from the old values to the new ones, leaving unchanged keys alone', () => {
    const edits = chunkEdits([
      { before: { uin: 7, region: 'a', tags: ['x', 'y'] }, after: { uin: 7, region: 'b', tags: ['y'] } },
    ]);
    expect(edits).toEqual([
      { key: 'region=a', chunk: 0, set: [], clear: [7] },
      { key: 'region=b', chunk: 0, set: [7], clear: [] },
      { key: 'tag=x', chunk: 0, set: [], clear: [7] },
    ]);
  });

  it('adds a new user to the universe, and a removed one leaves every bitset', () => {
    expect(chunkEdits([{ before: undefined, after: { uin: 70_000, gender: 'f' } }])).toEqual([
      { key: '*', chunk: 1, set: [70_000], clear: [] },
      { key: 'gender=f', chunk: 1, set: [70_000], clear: [] },
    ]);
    expect(chunkEdits([{ before: { uin: 3, ageBand: '65+' }, after: undefined }])).toEqual([
      { key: '*', chunk: 0, set: [], clear: [3] },
      { key: 'age=65+', chunk: 0, set: [], clear: [3] },
    ]);
  });

  it('groups users of one chunk into one edit and applies it', () => {
    const [edit] = chunkEdits([
      { before: undefined, after: { uin: 1 } },
      { before: { uin: 2 }, after: undefined },
    ]);
    const words = emptyChunk();
    words[0] = 0b100;
    applyChunkEdit(words, edit!);
    expect([chunkHas(words, 1), chunkHas(words, 2)]).toEqual([true, false]);
  });

  it('keeps the last entry of a uin given twice', () => {
    expect(
      lastPerUin([
        { uin: 1, v: 'a' },
        { uin: 2, v: 'b' },
        { uin: 1, v: 'c' },
      ]),
    ).toEqual([
      { uin: 2, v: 'b' },
      { uin: 1, v: 'c' },
    ]);
  });
});

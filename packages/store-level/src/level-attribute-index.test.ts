import { targetingSource } from '@herald/audience';
import {
  attributeIndexConformance,
  audienceSourceConformance,
  makeTempDir,
  userAttributeLookupConformance,
} from '@herald/testing';
import { LevelAttributeIndex } from './level-attribute-index';

attributeIndexConformance('LevelAttributeIndex', async () => {
  const dir = await makeTempDir('herald-level-attributes-');
  return { store: await LevelAttributeIndex.open(dir.path), cleanup: dir.remove };
});

userAttributeLookupConformance('LevelAttributeIndex', async () => {
  const dir = await makeTempDir('herald-level-lookup-');
  return { store: await LevelAttributeIndex.open(dir.path), cleanup: dir.remove };
});

audienceSourceConformance('targeting on LevelAttributeIndex', async () => {
  const dir = await makeTempDir('herald-level-targeting-');
  const index = await LevelAttributeIndex.open(dir.path);
  return {
    seed: async (uins, { batchSize }) => {
      // The audience is tagged and not churned; the noise is churned, or untagged.
      await index.putUsers(
        [
          ...uins.map((uin) => ({ uin, tags: ['t'] })),
          { uin: 123_456_789, tags: ['t', 'churned'] },
          { uin: 77, region: 'x' },
        ].filter((u, i, all) => all.findIndex((v) => v.uin === u.uin) === i),
      );
      return targetingSource(index, 'tag:t AND NOT tag:churned', { batchSize, windowChunks: 2 });
    },
    breakBackend: () => index.close(),
    close: async () => {
      await index.close();
      await dir.remove();
    },
  };
});

import { followerStoreConformance, makeTempDir } from '@herald/testing';
import { LevelFollowerStore } from './level-follower-store';

followerStoreConformance('LevelFollowerStore', async () => {
  const dir = await makeTempDir('herald-level-followers-');
  return { store: await LevelFollowerStore.open(dir.path), cleanup: dir.remove };
});

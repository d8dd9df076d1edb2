import { Resources } from './resources';

describe('Resources', () => {
  it('closes what a failed start had opened, newest first, and rethrows', async () => {
    const closed: string[] = [];
    const scope = new Resources();
    const failure = new Error('the third did not open');
    await expect(
      scope.starting(async () => {
        scope.add('first', 'a', () => void closed.push('first'));
        scope.add('second', 'b', async () => void closed.push('second'));
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(closed).toEqual(['second', 'first']);
  });

  it('goes on closing after one close fails, and closes each resource once', async () => {
    const closed: string[] = [];
    const scope = new Resources();
    scope.add('first', 'a', () => void closed.push('first'));
    scope.add('broken', 'b', () => {
      throw new Error('close failed');
    });
    scope.add('third', 'c', () => void closed.push('third'));
    await scope.closeAll();
    await scope.closeAll();
    expect(closed).toEqual(['third', 'first']);
  });
});

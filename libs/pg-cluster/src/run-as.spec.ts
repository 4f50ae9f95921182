import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertReachable } from './run-as.js';

// A user that owns nothing here, so only the "others" permission bits apply to it.
const stranger = { name: 'stranger', uid: 54321, gid: 54321 };

describe('assertReachable', () => {
  let top: string;
  beforeEach(async () => {
    top = await mkdtemp(join(tmpdir(), 'corral-reach-'));
    await mkdir(join(top, 'a/b'), { recursive: true });
  });
  afterEach(() => rm(top, { recursive: true, force: true }));

  it('passes when every folder on the way can be traversed', async () => {
    await chmod(top, 0o755);
    await expect(assertReachable(join(top, 'a/b/pg'), stranger)).resolves.toBeUndefined();
  });

  it('names the 0700 folder that blocks the way', async () => {
    await chmod(top, 0o755);
    await chmod(join(top, 'a'), 0o700);
    await expect(assertReachable(join(top, 'a/b/pg'), stranger)).rejects.toThrow(
      `the embedded PostgreSQL runs as user 'stranger', which cannot reach ${join(top, 'a/b/pg')}: ${join(top, 'a')} is mode 700`,
    );
  });
});

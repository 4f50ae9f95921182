import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config/config.js';
import { createLoggers } from './loggers.js';

describe('the access log', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'corral-logs-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

  it('is readable by its owner and group only, also when it was there before with wider rights', async () => {
    const config = loadConfig({ CORRAL_DATA_DIR: dataDir }, dataDir);
    const created = createLoggers(config);
    created.accessLog.write('{"msg":"a request"}\n');
    await created.flush();
    expect(await modeOf(join(dataDir, 'access.log'))).toBe(0o640);

    await chmod(join(dataDir, 'access.log'), 0o644);
    const reopened = createLoggers(config);
    await reopened.flush();
    expect(await modeOf(join(dataDir, 'access.log'))).toBe(0o640);
  });
});

import { parseConfigFile, renderConfigFile } from './config-file.js';

describe('config files as PVE writes them', () => {
  const config = { scsi0: 'local:100/vm-100-disk-0.qcow2,size=32G', memory: '2048', description: 'web server\n100% busy', name: 'web1' };

  it('writes the description as comment lines first, then the keys sorted', () => {
    expect(renderConfigFile(config)).toBe(
      '#web server\n#100%25 busy\nmemory: 2048\nname: web1\nscsi0: local:100/vm-100-disk-0.qcow2,size=32G\n',
    );
  });

  it('reads back what it writes', () => {
    expect(parseConfigFile(renderConfigFile(config))).toStrictEqual(config);
  });

  it('stops at the first snapshot section and skips blank lines', () => {
    expect(parseConfigFile('cores: 2\n\nmemory: 512\n[snap1]\ncores: 1\n')).toStrictEqual({ cores: '2', memory: '512' });
  });

  it('refuses a line that is not key: value, naming it', () => {
    expect(() => parseConfigFile('cores: 2\nthis is not a line\n')).toThrow("line 2 is not 'key: value'");
  });
});

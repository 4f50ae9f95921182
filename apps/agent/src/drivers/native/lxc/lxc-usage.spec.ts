import { cgroupFiles, parseProcCgroup, readContainerUsage } from './lxc-usage.js';

const HYBRID =
  '9:name=systemd:/lxc.payload.200\n5:blkio:/lxc.payload.200\n4:memory:/lxc.payload.200\n2:cpu,cpuacct:/lxc.payload.200\n0::/lxc.payload.200\n';

describe('container usage files', () => {
  it('reads the v1 controllers of a hybrid host, joined ones included', () => {
    const files = cgroupFiles(parseProcCgroup(HYBRID));
    expect(files.memory).toBe('/sys/fs/cgroup/memory/lxc.payload.200/memory.usage_in_bytes');
    expect(files.cpu).toBe('/sys/fs/cgroup/cpuacct/lxc.payload.200/cpuacct.usage');
    expect(files.cpuNs('7738407\n')).toBe(7738407);
    expect(files.io).toBe('/sys/fs/cgroup/blkio/lxc.payload.200/blkio.throttle.io_service_bytes');
    expect(files.ioBytes('8:0 Read 4096\n8:0 Write 512\n8:0 Sync 0\n8:0 Total 4608\n8:16 Read 1\n8:16 Write 2\nTotal 4611\n')).toEqual({
      in: 4097,
      out: 514,
    });
  });

  it('reads the v2 hierarchy of a unified host, where cpu.stat counts microseconds', () => {
    const files = cgroupFiles(parseProcCgroup('0::/lxc.payload.200\n'));
    expect(files.memory).toBe('/sys/fs/cgroup/lxc.payload.200/memory.current');
    expect(files.cpu).toBe('/sys/fs/cgroup/lxc.payload.200/cpu.stat');
    expect(files.cpuNs('usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n')).toBe(1_500_000);
    expect(files.io).toBe('/sys/fs/cgroup/lxc.payload.200/io.stat');
    expect(files.ioBytes('254:0 rbytes=4096 wbytes=512 rios=1 wios=1 dbytes=0 dios=0\n7:1 rbytes=1 wbytes=2 rios=1 wios=1\n')).toEqual({
      in: 4097,
      out: 514,
    });
  });

  it('has no usage for a process that is gone', async () => {
    expect(await readContainerUsage(2 ** 22 + 1)).toBeUndefined();
  });
});
